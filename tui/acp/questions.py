"""The loop's questions put to the ACP client as `session/request_permission`, answered into the same futures.

A permission question offers allow once, always allow (the rule the app's "always" saves) and
reject; the answer resolves `PermissionRequested.reply`, so the dispatcher applies it as it does
the dialog's (saving the rule, publishing PermissionResolved). ExitPlanMode's plan and
AskUserQuestion's choices ride on the same request, each choice an option. No answer (the client
gone, an error, `cancelled`) is a denial.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import Future, InvalidStateError
from typing import TYPE_CHECKING, Any

from acp.schema import PermissionOption, PermissionOptionKind, ToolCallUpdate

from tui.agent.events import PermissionReply, PermissionRequested, UserQuestionAsked

from .files import planned_change
from .updates import diff_content, locations, text_content, tool_kind

if TYPE_CHECKING:
    from .link import SessionLink

ALLOW_ONCE, ALLOW_ALWAYS, REJECT_ONCE = "allow_once", "allow_always", "reject_once"
#: ExitPlanMode's three answers, as the app's plan dialog gives them
PLAN_CHOICES: tuple[tuple[str, str, PermissionOptionKind], ...] = (
    ("auto", "Yes, and accept edits automatically", "allow_always"),
    ("ask", "Yes, and ask before each edit", "allow_once"),
    ("keep", "No, keep planning", "reject_once"),
)


def _answer(reply: Future, value: Any) -> None:
    """Resolve a reply future the loop thread may have cancelled meanwhile (an interrupt)."""
    if not reply.done():
        try:
            reply.set_result(value)
        except InvalidStateError:
            pass


async def _ask(link: SessionLink, tool_call: ToolCallUpdate, options: list[PermissionOption]) -> str | None:
    """The option the user picked, or None (cancelled, no client, an error: said on stderr)."""
    try:
        response = await link.client.request_permission(session_id=link.id, tool_call=tool_call, options=options)
    except Exception as exc:  # noqa: BLE001 - the client went away or answered nonsense: a denial
        link.lost(exc, f"the question about {tool_call.title} got no answer")
        return None
    outcome = response.outcome
    return getattr(outcome, "option_id", None) if getattr(outcome, "outcome", "") == "selected" else None


async def ask_permission(link: SessionLink, ev: PermissionRequested) -> None:
    """Ask the client whether a gated call may run; the answer goes through the dispatcher's gate."""
    reply = PermissionReply(False)
    try:
        tool = link.session.dispatcher.tools.get(ev.tool_name)
        ctx = link.session.tool_context(ev.tool_use_id)
        content = [text_content(ev.reason)] if ev.reason else []
        change = (
            await asyncio.to_thread(planned_change, ev.tool_name, ev.input, ctx)
            if ev.tool_name in ("Edit", "Write")
            else None
        )
        preview = ev.preview or {}
        if change is not None:
            content.append(diff_content(*change))
        elif preview.get("kind") == "command":
            content.append(text_content(f"$ {preview.get('command', '')}"))
        elif preview.get("text"):
            content.append(text_content(str(preview["text"])))
        tool_call = ToolCallUpdate(
            tool_call_id=ev.tool_use_id,
            title=ev.label or ev.tool_name,
            status="pending",
            kind=tool_kind(ev.tool_name, tool),
            content=content,
            raw_input=ev.input,
            locations=locations(ev.tool_name, ev.input, ctx.resolve),
        )
        options = [
            PermissionOption(option_id=ALLOW_ONCE, name="Allow", kind="allow_once"),
            PermissionOption(option_id=ALLOW_ALWAYS, name=f"Always allow {ev.suggested_rule}", kind="allow_always"),
            PermissionOption(option_id=REJECT_ONCE, name="Reject", kind="reject_once"),
        ]
        picked = await _ask(link, tool_call, options)
        if picked == ALLOW_ONCE:
            reply = PermissionReply(True, "once")
        elif picked == ALLOW_ALWAYS:
            reply = PermissionReply(True, "always", rule=ev.suggested_rule)
    finally:
        _answer(ev.reply, reply)


async def ask_user(link: SessionLink, ev: UserQuestionAsked) -> None:
    """ExitPlanMode's plan or AskUserQuestion's questions, one request each; any question left open dismisses all."""
    answer: dict[str, Any] = {"dismissed": True}
    try:
        if ev.kind == "plan":
            tool_call = ToolCallUpdate(
                tool_call_id=ev.tool_use_id,
                title="Approve the plan",
                kind="switch_mode",
                status="pending",
                content=[text_content(str(ev.payload.get("plan", "")))],
            )
            options = [PermissionOption(option_id=key, name=name, kind=kind) for key, name, kind in PLAN_CHOICES]
            picked = await _ask(link, tool_call, options)
            if picked in ("auto", "ask"):  # approved: plan mode ends, as the app's plan dialog does
                link.set_mode("acceptEdits" if picked == "auto" else "default", by="the approved plan")
            if picked is not None:
                answer = {"choice": picked, "feedback": ""}
            return
        answers: dict[str, str] = {}
        for i, question in enumerate(ev.payload.get("questions", [])):
            labels = [str(o.get("label", "")) for o in question.get("options", [])]
            tool_call = ToolCallUpdate(
                tool_call_id=f"{ev.tool_use_id}_q{i}",
                title=str(question.get("question", "")),
                kind="other",
                status="pending",
            )
            options = [
                PermissionOption(option_id=str(j), name=label, kind="allow_once") for j, label in enumerate(labels)
            ]
            options.append(PermissionOption(option_id="skip", name="Skip the question", kind="reject_once"))
            picked = await _ask(link, tool_call, options)
            if picked is None or not picked.isdigit():
                return
            answers[str(question.get("question", ""))] = labels[int(picked)]
        answer = {"answers": answers}
    finally:
        _answer(ev.reply, answer)
