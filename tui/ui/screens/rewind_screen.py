"""/rewind and Esc Esc: pick an earlier prompt (or a branch), then restore code, conversation or both."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from tui.text.sanitize import one_line
from tui.text.wording import plural

from ..commands import slash_command
from ..widgets.dialog_box import DialogBox

if TYPE_CHECKING:
    from tui.agent.door import FileStep, Mode, RewindEntry

    from ..app import AgentApp

#: two Esc presses closer than this on an empty, idle prompt open the rewind list
DOUBLE_ESC_S = 0.8
_MODES: dict[str, Mode] = {"1": "both", "2": "conversation", "3": "code"}
#: when no file changed since the point, the one choice is numbered 1
_CONVERSATION_ONLY: dict[str, Mode] = {"1": "conversation"}


@dataclass
class RewindChoice:
    """What the dialog settled on."""

    entry: RewindEntry
    mode: Mode
    steps: list[FileStep] = field(default_factory=list)
    overwrite: bool = True


def entry_text(entry: RewindEntry) -> Text:
    """One list line: time, prompt, and the files it changed with +/- line counts."""
    line = Text()
    if entry.ts:
        line.append(entry.ts[11:16] + "  ", style="dim")
    line.append(one_line(entry.label)[:80], style="italic" if entry.is_branch else "bold")
    if entry.files:
        parts = []
        for name, plus, minus in entry.files[:4]:
            counts = f" +{plus} -{minus}" if plus is not None else ""
            parts.append(one_line(name) + counts)
        more = f", {plural(len(entry.files) - 4, 'more file')}" if len(entry.files) > 4 else ""
        line.append("\n    " + ", ".join(parts) + more, style="dim")
    elif not entry.is_branch:
        line.append("\n    no file changes" if entry.pos is not None else "\n    conversation only", style="dim")
    return line


class RewindScreen(ModalScreen[RewindChoice | None]):
    """The rewind list, then the three ways to restore, then (if any) the files changed outside agent-tui."""

    BINDINGS = [
        Binding("escape", "cancel", "Never mind"),
        Binding("1", "choose('1')", "Code and conversation", show=False),
        Binding("2", "choose('2')", "Conversation", show=False),
        Binding("3", "choose('3')", "Code", show=False),
        Binding("o", "conflict(True)", "Overwrite", show=False),
        Binding("k", "conflict(False)", "Keep theirs", show=False),
    ]
    DEFAULT_CSS = """
    RewindScreen { align: center middle; }
    #rewind-box { width: 90%; height: 85%; border: round $accent; background: $surface; padding: 0 1; }
    #rewind-list { height: 1fr; }
    #rewind-question { height: auto; padding: 1 0 0 0; }
    """

    def __init__(self, app_: AgentApp, entries: list[RewindEntry]) -> None:
        super().__init__()
        self.agent_app = app_
        self.entries = entries
        self.stage = "list"
        self.chosen: RewindEntry | None = None
        self.steps: list[FileStep] = []
        self.mode: Mode = "both"

    def compose(self) -> ComposeResult:
        with DialogBox(id="rewind-box"):
            yield Static(
                Text("Rewind · ↑↓ choose a point · Enter · Esc never mind", style="bold"),
                classes="panel-title dialog-head",
                id="rewind-title",
            )
            yield OptionList(
                *[Option(entry_text(e), id=str(n)) for n, e in enumerate(self.entries)],
                id="rewind-list",
                classes="dialog-body -fill",
            )
            yield Static("", id="rewind-question", classes="dialog-answers")

    def on_mount(self) -> None:
        options = self.query_one("#rewind-list", OptionList)
        prompts = [n for n, e in enumerate(self.entries) if not e.is_branch]
        options.highlighted = prompts[-1] if prompts else len(self.entries) - 1
        options.focus()

    @property
    def question(self) -> Static:
        return self.query_one("#rewind-question", Static)

    @on(OptionList.OptionSelected, "#rewind-list")
    def _selected(self, message: OptionList.OptionSelected) -> None:
        if self.stage != "list":
            return
        self.chosen = self.entries[int(message.option.id or 0)]
        self.steps = self.agent_app.session.rewind_plan(self.chosen)
        self.stage = "choose"
        lines = Text()
        lines.append(f"Rewind to: {one_line(self.chosen.label)[:100]}\n", style="bold")
        if self.steps:
            lines.append(f"1  Restore code and conversation ({plural(len(self.steps), 'file')})\n")
            lines.append("2  Restore conversation (the code stays as it is)\n")
            lines.append("3  Restore code (the conversation stays as it is)\n")
        else:
            lines.append("1  Restore conversation (no file changed since this point)\n")
        lines.append("Esc  Never mind", style="dim")
        self.question.update(lines)
        self.query_one("#rewind-list", OptionList).disabled = True

    def action_choose(self, key: str) -> None:
        if self.stage != "choose" or self.chosen is None:
            return
        mode = (_MODES if self.steps else _CONVERSATION_ONLY).get(key)  # numbered as listed
        if mode is None:
            return
        self.mode = mode
        conflicts = [s for s in self.steps if s.conflict] if mode != "conversation" else []
        if not conflicts:
            self.dismiss(RewindChoice(self.chosen, mode, self.steps))
            return
        self.stage = "conflict"
        names = ", ".join(one_line(s.shown(self.agent_app.session.options.project_dir)) for s in conflicts)
        lines = Text()
        lines.append(f"{plural(len(conflicts), 'file')} changed outside agent-tui since then: {names}\n", style="bold")
        lines.append("o  Overwrite them too\nk  Keep them as they are (restore the rest)\nEsc  Never mind")
        self.question.update(lines)

    def action_conflict(self, overwrite: bool) -> None:
        if self.stage == "conflict" and self.chosen is not None:
            self.dismiss(RewindChoice(self.chosen, self.mode, self.steps, overwrite))

    def action_cancel(self) -> None:
        self.dismiss(None)


async def open_rewind(app: AgentApp) -> None:
    """Show the rewind list (built off the UI thread); do the restore the user chooses."""
    import asyncio

    if app.controller.busy:
        app.notify("A turn is running: press Esc to interrupt it before rewinding.", severity="warning")
        return
    entries = await asyncio.to_thread(app.session.rewind_entries)
    if not entries:
        app.notify("There is nothing to rewind to yet: no prompt was sent.", severity="warning")
        return

    async def chosen(choice: RewindChoice | None) -> None:
        if choice is None:
            return
        await apply_choice(app, choice)

    app.push_screen(RewindScreen(app, entries), chosen)


async def apply_choice(app: AgentApp, choice: RewindChoice) -> None:
    """Restore what the user chose, show the conversation it leaves, and put the prompt back in the input."""
    import asyncio

    from .resume_screen import show_history

    try:
        result = await asyncio.to_thread(app.session.rewind, choice.entry, choice.mode, choice.steps, choice.overwrite)
    except (OSError, RuntimeError, ValueError) as exc:
        app.notify(f"Could not rewind: {exc}", severity="error")
        return
    if choice.mode != "code":
        await show_history(app, app.session.messages)
    if result.lines:
        await app.controller.add_marker(
            "rewind: " + "; ".join(result.lines), "warning" if result.unrestored else "info"
        )
    if result.prompt:
        app.prompt_area.restore(result.prompt)
    app.prompt_area.focus()
    if result.unrestored:
        app.notify(result.lines[0], severity="warning")


def escape_pressed(app: AgentApp) -> None:
    """Esc on an idle app: a second press soon after, with the prompt empty, opens the rewind list."""
    now = time.monotonic()
    last = getattr(app, "_last_escape", 0.0)
    app._last_escape = now  # type: ignore[attr-defined]
    if now - last <= DOUBLE_ESC_S and not app.prompt_area.text.strip() and not app.controller.busy:
        app._last_escape = 0.0  # type: ignore[attr-defined]
        app.run_worker(open_rewind(app), group="rewind", exclusive=True)


@slash_command("rewind", "Go back to an earlier prompt: code, conversation or both")
async def _rewind_command(app: AgentApp, args: str) -> None:
    await open_rewind(app)
