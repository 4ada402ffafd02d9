"""What the prompt does with `/custom-command args`, `!cmd`, `#text` and `@file` (issue 15), and `/init`.

The engine side is the prompt pipeline (`tui/agent/prompt/pipeline.py`); this module only starts the work on
a thread worker and shows it: a custom command or a prompt with `@` files is expanded off the UI thread (its
`!` lines may run), bash mode and `/init` run one tool call through the session's dispatcher, so the tool
block, the permission dialog and the tool panel show them like any call.
"""

from __future__ import annotations

import threading
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.app import SystemCommand

from tui.text.sanitize import one_line

from .commands import run_slash, slash_command
from .threads import call_soon_from_thread

if TYPE_CHECKING:
    from collections.abc import Iterable

    from tui.agent.door import Session
    from tui.hooks.commands import CustomCommand

    from .app import AgentApp

_starting = threading.Lock()
BASH_CONTEXT_NOTE = "bash mode: the command and its output go into your next request as context"


def _busy(app: AgentApp) -> bool:
    if app.controller.busy:
        app.notify("A turn is running: press Esc to interrupt it, or wait.", severity="warning")
        return True
    return False


async def submit(app: AgentApp, text: str) -> bool:
    """Handle `!cmd` and `#text`; False for a prompt to send (`@` files are the pipeline's: send_prompt)."""
    from tui.agent.prompt.pipeline import is_pin_prompt

    if text.startswith("!") and text[1:].strip():
        await bash_mode(app, text[1:].strip())
        return True
    if is_pin_prompt(text):  # `#pin …` is a prompt to keep verbatim, not a memory line
        if not text[4:].strip():
            await run_slash(app, "/pin")
            return True
        return False
    if text.startswith("#") and text.lstrip("#").strip():
        remember(app, text.lstrip("#").strip())
        return True
    return False


async def run_custom(app: AgentApp, name: str, args: str) -> bool:
    """Run `/name args` when `name` is a custom command or skill; False when there is none of that name."""
    session = app.session
    if session.prompt_catalog().get(name) is None and session.prompt_catalog(reload=True).get(name) is None:
        return False
    await start_prepared_turn(app, f"/{name} {args}".rstrip())
    return True


async def start_prepared_turn(app: AgentApp, text: str) -> None:
    """Show `text` as typed, then send it through the engine's prompt pipeline on a thread."""
    if _busy(app):
        app.prompt_area.restore(text)
        return
    await app.controller.begin_local_turn(text)
    images = app.take_images()
    app.run_worker(partial(send_prompt, app, text, images), thread=True, group="submit", exit_on_error=False)


def send_prompt(app: AgentApp, text: str, images: tuple[dict[str, Any], ...] = ()) -> None:
    """On a thread worker: the prompt through the pipeline (tui/agent/prompt/pipeline.py); a refusal, an
    interrupt while asking about an attachment or a failure is one toast, and the app is idle again."""
    from tui.agent.prompt.pipeline import APP

    try:  # an `@` mention that needs a yes asks in the permission dialog
        outcome = app.session.run_prompt(text, images=images, source=APP)
    except RuntimeError as exc:  # e.g. a turn still winding down
        call_soon_from_thread(app, app._submit_failed, str(exc))
        return
    except Exception as exc:  # a bug must not leave the app busy
        call_soon_from_thread(app, app._submit_failed, f"{type(exc).__name__}: {exc}")
        return
    if outcome.refusal:
        call_soon_from_thread(app, app._submit_failed, outcome.refusal)
    elif outcome.cancelled:  # Esc while a question was open: nothing is sent
        call_soon_from_thread(app, app._submit_failed, "interrupted while asking about an attachment")


async def bash_mode(app: AgentApp, command_line: str) -> None:
    """`!cmd`: run it as a Bash call (the verdict and the dialog apply), show it, keep it for the next request."""
    if _busy(app):
        app.prompt_area.restore(f"!{command_line}")
        return
    await app.controller.begin_local_turn(f"!{command_line}")
    app.run_worker(partial(_run_bash, app, command_line), thread=True, group="submit", exit_on_error=False)


def _run_bash(app: AgentApp, command_line: str) -> None:
    from tui.agent.prompt.pipeline import APP

    try:
        app.session.run_prompt(f"!{command_line}", source=APP)
        note, tone = BASH_CONTEXT_NOTE, "info"
    except Exception as exc:
        note, tone = f"bash mode failed: {type(exc).__name__}: {exc}", "error"
    call_soon_from_thread(app, _finished, app, note, tone, True)


def _finished(app: AgentApp, note: str, tone: str, show_output: bool = False) -> None:
    app.controller.abort_local_turn()  # idle again: no model turn followed
    if show_output:  # bash mode shows what the command printed, unfolded
        from .widgets.blocks import ToolCallBlock

        blocks = app.screen_stack[0].query(ToolCallBlock)
        if blocks:
            blocks.last().collapsed = False
    app.run_worker(app.controller.add_marker(note, tone), group="slash")


def remember(app: AgentApp, line: str) -> None:
    """`#text`: ask which memory file, then append the line and reload the memory for the next request."""
    from tui.hooks.memory_shortcut import add_memory_line, memory_targets

    from .screens.memory_target_screen import MemoryTargetScreen

    def chosen(target: Any) -> None:
        if target is None:
            app.prompt_area.restore(f"#{line}")  # cancelled: nothing is lost
            return
        try:
            app.notify(add_memory_line(target.path, line), title="Memory")
        except (OSError, ValueError) as exc:
            app.notify(f"Could not write {target.path}: {exc}", severity="error", title="Memory")
            return
        reload_memory(app.session)

    app.push_screen(MemoryTargetScreen(line, memory_targets(Path(app.options.project_dir))), chosen)


def reload_memory(session: Session) -> None:
    """Read the memory files again before the next request (the system prompt changes once)."""
    if hasattr(session, "reload_memory"):
        session.reload_memory()


@slash_command("init", "Write AGENTS.md (or CLAUDE.md) from a look at the project")
async def _init(app: AgentApp, args: str) -> None:
    if _busy(app):
        return
    await app.controller.begin_local_turn("/init")
    app.run_worker(partial(_run_init, app), thread=True, group="submit", exit_on_error=False)


def _run_init(app: AgentApp) -> None:
    from tui.hooks.init_memory import init_plan

    session = app.session
    session.cancel_event.clear()
    try:
        path, content, existed = init_plan(Path(app.options.project_dir))
        text, is_error = session.write_file(path, content, session.cancel_event)
        if is_error:
            note, tone = f"/init: {path.name} was not written: {text}", "warning"
        else:
            reload_memory(session)
            note, tone = f"/init: {'updated' if existed else 'wrote'} {path}", "info"
    except Exception as exc:
        note, tone = f"/init failed: {type(exc).__name__}: {exc}", "error"
    call_soon_from_thread(app, _finished, app, note, tone)


def palette_entries(app: AgentApp) -> Iterable[SystemCommand]:
    """Custom commands and skills in the command palette, with their descriptions."""
    for command in app.session.prompt_catalog().commands.values():
        yield SystemCommand(f"/{command.name}", describe(command), partial(_from_palette, app, command))


def describe(command: CustomCommand) -> str:
    """`description  <hint>  (project command)`, one line."""
    hint = f"  {command.argument_hint}" if command.argument_hint else ""
    return one_line(f"{command.description}{hint}  ({command.label})")


def _from_palette(app: AgentApp, command: CustomCommand) -> None:
    if command.argument_hint:  # it wants arguments: put it in the prompt for the user to finish
        app.prompt_area.load_text(f"/{command.name} ")
        app.prompt_area.move_cursor(app.prompt_area.document.end)
        app.prompt_area.focus()
        return
    app.run_worker(run_custom(app, command.name, ""), group="slash")


def after_start(app: AgentApp) -> None:
    """In a thread worker after the first frame: toast each command, skill or agent file that could not be read,
    and start the `statusLine` command when one is set."""
    from tui.config.settings import load_settings

    with _starting:  # a resumed app's start-up steps run twice (on_ready in two classes): report once
        if getattr(app, "_shortcuts_started", False):
            return
        app._shortcuts_started = True  # type: ignore[attr-defined]
    for problem in app.session.prompt_catalog().problems:
        call_soon_from_thread(app, app.notify, problem, title="Commands and skills", severity="warning", timeout=12)
    agent_tool = next((t for t in getattr(app.session, "tools", ()) if t.name == "Agent"), None)
    if agent_tool is not None:
        agent_tool.definitions()  # read the agent files now: each one skipped is a toast at start, not at the first turn
    command = load_settings(Path(app.options.project_dir)).settings.status_line
    if command:
        from . import status_command

        call_soon_from_thread(app, status_command.start, app, command)
