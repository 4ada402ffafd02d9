"""`#text`: which memory file the line goes to (project, local or user), as Claude Code asks."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from tui.hooks.memory_shortcut import MemoryTarget
from tui.text.sanitize import one_line

from ..widgets.dialog_box import DialogBox


class MemoryTargetScreen(ModalScreen["MemoryTarget | None"]):
    """A short list of memory files; Enter picks one, Esc cancels (nothing is written)."""

    DEFAULT_CSS = """
    MemoryTargetScreen { align: center middle; }
    #memory-target-box { width: 80; max-width: 95%; height: auto; max-height: 90%; border: round $primary;
                         background: $surface; padding: 0 1; }
    #memory-target-line { color: $text-muted; margin-bottom: 1; }
    #memory-targets { height: auto; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="memory_target.cancel")]

    def __init__(self, line: str, targets: list[MemoryTarget]) -> None:
        super().__init__()
        self.line = line
        self.targets = targets

    def compose(self) -> ComposeResult:
        with DialogBox(id="memory-target-box"):
            with Vertical(classes="dialog-head"):
                yield Static("Remember where?", classes="title")
                yield Static(f"- {one_line(self.line)}", id="memory-target-line", markup=False)
            yield OptionList(
                *(Option(one_line(t.label), id=t.key) for t in self.targets), id="memory-targets", classes="dialog-body"
            )
            yield Static("Enter saves · Esc cancels", classes="hint dialog-answers")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(next(t for t in self.targets if t.key == event.option.id))

    def action_cancel(self) -> None:
        self.dismiss(None)
