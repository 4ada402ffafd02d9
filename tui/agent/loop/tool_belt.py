"""The tool belt seen from the loop: background task events and notifications, `pause_turn`, asking the user."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import CancelledError, Future
from typing import TYPE_CHECKING, Any

from tui.agent.events import BackgroundShellChanged, Event, UserQuestionAsked
from tui.tools.base import Tool, ToolInterrupted
from tui.tools.tasks import BackgroundTask, TaskRegistry

if TYPE_CHECKING:
    from tui.agent.options import AgentOptions
    from tui.agent.session import AgentSession


def configure_tools(tools: list[Tool], options: AgentOptions) -> None:
    """Give the tools their settings: WebSearch its `max_uses` and domain lists."""
    from tui.tools.web_search import WebSearchTool

    for tool in tools:
        if isinstance(tool, WebSearchTool):
            tool.max_uses = options.web_search_max_uses
            tool.allowed_domains = list(options.web_search_allowed_domains)
            tool.blocked_domains = list(options.web_search_blocked_domains)


def publish_changes(registry: TaskRegistry, publish: Callable[[Event], None]) -> None:
    """Publish a BackgroundShellChanged for every start and end of a task in `registry`."""

    def changed(task: BackgroundTask) -> None:
        publish(
            BackgroundShellChanged(
                task_id=task.id,
                kind=task.kind,
                description=task.description,
                status=task.status,
                output_path=task.output_path,
                exit_code=task.exit_code,
            )
        )

    registry.listeners.append(changed)


def notification_blocks(registry: TaskRegistry) -> list[dict[str, Any]]:
    """One text block per task that ended since the last request, as Claude Code's task notification."""
    blocks = []
    for task in registry.take_finished():
        lines = [
            "<task-notification>",
            f"<task-id>{task.id}</task-id>",
            f"<output-file>{task.output_path}</output-file>",
            f"<status>{task.status}</status>",
            f"<summary>{task.summary()}</summary>",
        ]
        if task.result:  # a worker's answer (a background agent's final text) comes along
            lines.append(f"<result>{task.result}</result>")
        if note := registry.output_note(task.id):  # the output passed its cap: the file keeps the newest part
            lines.append(f"<output_note>{note}</output_note>")
        lines.append("</task-notification>")
        if not task.result:
            lines.append("Read the output file to see the result.")
        blocks.append({"type": "text", "text": "\n".join(lines)})
    return blocks


PLAN_MODE_REMINDER = (
    "<system-reminder>\nPlan mode is on: do not change anything yet (no edits, no commands that change "
    "state). Explore with read-only tools, ask with AskUserQuestion if something is unclear, then call "
    "ExitPlanMode with your plan for the user to approve.\n</system-reminder>"
)
#: the same where nobody can answer (-p, an Agent SDK program without a permission callback)
PLAN_MODE_REMINDER_UNATTENDED = (
    "<system-reminder>\nPlan mode is on: do not change anything (no edits, no commands that change state). "
    "Explore with read-only tools, then end your reply with your plan.\n</system-reminder>"
)
#: tools that need someone to answer them, and the front ends where TodoWrite's list is shown to anyone
NEEDS_AN_ANSWER = frozenset({"AskUserQuestion", "ExitPlanMode"})
TODO_SHOWN_IN = frozenset({"app", "acp", "sdk"})


def offered_here(name: str, front_end: str, *, can_answer: bool, named: bool = False) -> bool:
    """Whether a built-in tool can work in this front end: AskUserQuestion and ExitPlanMode only where someone
    answers them, TodoWrite only where its list is shown (not plain -p, as Claude Code) or `--tools` names it."""
    if name in NEEDS_AN_ANSWER:
        return can_answer
    if name == "TodoWrite":
        return named or front_end in TODO_SHOWN_IN
    return True


def remind_mode(session: AgentSession) -> None:
    """Add a reminder to the prompt just appended: plan mode's (Claude Code's) on every prompt while it is on,
    and a changed mode's meaning once, when it differs from the one the system prompt named."""
    mode = str(getattr(session.policy, "mode", ""))
    if not session.messages or not mode:
        return
    if mode == "plan":
        answered = session.state.ask_user is not None
        text = PLAN_MODE_REMINDER if answered else PLAN_MODE_REMINDER_UNATTENDED
    elif session.told_mode and mode != session.told_mode:
        from .approvals import mode_reminder

        text = mode_reminder(mode, session.front_end, session.dispatcher.interactive)
    else:
        return
    session.told_mode = mode if session.told_mode else ""
    last = session.messages[-1]
    session.messages[-1] = {"role": "user", "content": [*last["content"], {"type": "text", "text": text}]}
    if session.transcript:
        session.transcript.write({"type": "merge_user", "message": session.messages[-1]})


#: `pause_turn` continuations in a row before the turn ends (Claude Code loops "with a cap")
MAX_PAUSE_TURNS = 10


def pause_streak(messages: list[dict[str, Any]]) -> int:
    """How many assistant messages end the history in a row: the pause_turn continuations so far."""
    count = 0
    for message in reversed(messages):
        if message.get("role") != "assistant":
            break
        count += 1
    return count


def ask_user(
    session: AgentSession, kind: str, payload: dict[str, Any], tool_use_id: str, cancel: threading.Event
) -> dict[str, Any]:
    """Publish a UserQuestionAsked and wait for the app's answer; ToolInterrupted on interrupt.

    ExitPlanMode outside plan mode gets {"error": ...} without asking.
    """
    if kind == "plan" and getattr(session.policy, "mode", "") != "plan":
        return {"error": "Plan mode is not on, so there is no plan to approve; go ahead with the work."}
    reply: Future[dict[str, Any]] = Future()
    session.publish(UserQuestionAsked(tool_use_id=tool_use_id, kind=kind, payload=payload, reply=reply))
    while True:
        if cancel.is_set():
            reply.cancel()
            raise ToolInterrupted()
        try:
            return reply.result(timeout=0.05)
        except TimeoutError:
            continue
        except CancelledError:  # the app closed the dialog without an answer
            return {"dismissed": True}


def append_text(content: str | list[dict[str, Any]], note: str) -> str | list[dict[str, Any]]:
    if isinstance(content, str):
        return f"{content}\n\n{note}" if content else note
    return [*content, {"type": "text", "text": note}]
