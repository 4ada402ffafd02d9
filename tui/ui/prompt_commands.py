"""`/think`, `/effort`, `/vim` and `/add-dir`; Tab on an empty prompt toggles thinking as `/think` does.

Thinking and effort apply from the next prompt (a running turn keeps what it began with) and only
where the model takes them (tui/agent/api/thinking.py): otherwise one sentence says so and the
requests stay as they were.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import TYPE_CHECKING

from tui.agent.api.thinking import effort_refusal, model_thinking, off_refusal, thinking_on

from .commands import slash_command

if TYPE_CHECKING:
    from .app import AgentApp


def _when(app: AgentApp) -> str:
    return "from the next prompt (this turn keeps its own)" if app.controller.busy else "for the following prompts"


def show_choices(app: AgentApp) -> None:
    """Put the thinking and effort choices on the status line; say so once when --effort cannot apply."""
    options = app.session.options
    app.status.thinking_choice = options.thinking
    app.status.effort = options.effort
    if options.effort and (refusal := effort_refusal(options.model, model_thinking(options.model), options.effort)):
        app.notify(f"--effort: {refusal}", severity="warning", timeout=8)


def toggle_thinking(app: AgentApp) -> None:
    """Thinking on or off for the following prompts, where the model allows it."""
    options = app.session.options
    model = options.model
    support = model_thinking(model)
    if thinking_on(model, options.thinking):
        if refusal := off_refusal(model, support, options.effort):
            app.notify(refusal, severity="warning")
            return
        app.session.set_thinking(False)
    elif not support.has_thinking:
        app.notify(f"{model} has no extended thinking; nothing changes.", severity="warning")
        return
    else:
        app.session.set_thinking(True)
    app.status.thinking_choice = options.thinking
    app.notify(f"Thinking {'on' if options.thinking else 'off'} {_when(app)}.")


@slash_command("think", "Extended thinking on or off for the following prompts (also Tab on an empty prompt)")
def _think(app: AgentApp, args: str) -> None:
    toggle_thinking(app)


@slash_command(
    "effort",
    "How much effort the model spends: low, medium, high, xhigh, max (or auto)",
    usage="[low|medium|high|xhigh|max|auto]",
)
def _effort(app: AgentApp, args: str) -> None:
    options = app.session.options
    model = options.model
    support = model_thinking(model)
    level = args.strip().lower()
    if not level:
        current = options.effort or "the model's default"
        offered = ", ".join(support.efforts) if support.efforts else "none: it has no effort setting"
        app.notify(f"Effort: {current}. {model} takes {offered}.")
        return
    if level in ("auto", "default"):
        app.session.set_effort(None)
        app.status.effort = None
        app.notify(f"Effort: the model's default {_when(app)}.")
        return
    refusal = effort_refusal(model, support, level)
    if refusal is None and options.thinking is False:
        refusal = off_refusal(model, support, level)  # thinking cannot stay off at this effort
    if refusal:
        app.notify(refusal, severity="warning")
        return
    app.session.set_effort(level)
    app.status.effort = level
    app.notify(f"Effort {level} {_when(app)}.")


@slash_command("vim", "Vi keys in the prompt on or off (saved as editor_mode)")
def _vim(app: AgentApp, args: str) -> None:
    from .widgets.prompt_keys import install

    keys = install(app)
    on = keys.vi is None
    keys.set_vi(on)
    mode = "vim" if on else "normal"

    def save() -> None:
        from tui.config.settings import save_user_setting

        try:
            save_user_setting("editor_mode", mode)
        except Exception as exc:  # a settings file that does not parse, a read-only home
            app.call_from_thread(app.notify, f"The editor mode was not saved: {exc}", severity="warning")

    app.run_worker(save, thread=True, group="settings", exit_on_error=False)
    if on:
        app.notify("Vi keys on: Esc for normal mode, i to insert, Enter sends in both (/vim turns them off).")
    else:
        app.notify("Vi keys off.")


@slash_command(
    "add-dir", "Add a working directory the tools may use as part of the project", usage="PATH", in_palette=False
)
async def _add_dir(app: AgentApp, args: str) -> None:
    options = app.session.options
    raw = args.strip().strip("'\"")
    if not raw:
        app.notify("/add-dir needs a directory: /add-dir ../shared", severity="warning")
        return
    path = Path(os.path.expanduser(raw))
    path = (path if path.is_absolute() else Path(options.project_dir) / path).resolve()
    if not path.is_dir():
        app.notify(f"{raw} is not a directory.", severity="warning")
        return
    project = Path(options.project_dir).resolve()
    if path == project or project in path.parents or any(path == d or d in path.parents for d in options.add_dirs):
        app.notify(f"{path} is already a working directory.")
        return
    await asyncio.to_thread(app.session.add_directory, path)  # DirectoryAdded hooks may take a moment
    await app.controller.add_marker(
        f"working directory added: {path} (reads, edits and Bash's sandbox treat it as part of the project)", "info"
    )
