"""/memory: which memory files were loaded into the system prompt, from where, and what they say."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from tui.config.memory import MemoryFile, load_memory
from tui.sanitize import one_line, visible


class MemoryScreen(ModalScreen[None]):
    """A table of loaded memory files; the highlighted one is shown below it."""

    DEFAULT_CSS = """
    MemoryScreen { align: center middle; }
    #memory-box { width: 90%; height: 85%; border: round $primary; background: $surface; padding: 0 1; }
    #memory-box > .title { text-style: bold; }
    #memory-files { height: auto; max-height: 40%; }
    #memory-view { height: 1fr; border-top: solid $primary-darken-2; }
    """

    BINDINGS = [Binding("escape,q", "close", "Close", id="close_memory")]

    def __init__(self, files: list[MemoryFile] | None = None, project_dir: Path | None = None) -> None:
        super().__init__()
        self.files = files if files is not None else load_memory(project_dir or Path.cwd())

    def compose(self) -> ComposeResult:
        with Vertical(id="memory-box"):
            yield Static("Memory files", classes="title")
            if not self.files:
                yield Static(
                    "No memory files loaded. Put instructions in AGENTS.md or CLAUDE.md at the project root "
                    "(or in the user config folder); `@path` lines import other files.",
                    id="memory-empty",
                )
            yield DataTable(id="memory-files", cursor_type="row")
            with VerticalScroll(id="memory-view"):
                yield Static("", id="memory-text", markup=False)
            yield Static(Text("Up/Down choose a file · Esc closes", style="dim"))

    def on_mount(self) -> None:
        table = self.query_one("#memory-files", DataTable)
        table.add_columns("File", "Imported by", "Lines")
        for index, memory in enumerate(self.files):
            table.add_row(
                Text(one_line(str(memory.path))),
                Text(one_line(str(memory.imported_from))) if memory.imported_from else "—",
                str(len(memory.text.splitlines())),
                key=str(index),
            )
        if self.files:
            self._show(0)
            table.focus()

    def _show(self, index: int) -> None:
        self.query_one("#memory-text", Static).update(Text(visible(self.files[index].text)))

    @on(DataTable.RowHighlighted, "#memory-files")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.row_key.value is not None:
            self._show(int(event.row_key.value))

    def action_close(self) -> None:
        self.dismiss(None)
