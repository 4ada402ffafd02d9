"""/memory: each memory file exactly as the system prompt carries it: the text sent, where it sits, its tokens.

With a session, the files are the ones its system prompt was built from (what the model saw),
each framed as sent, with its place in system[] and a note when the file changed on disk since.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from tui.config.memory import MemoryFile, load_memory, memory_layout
from tui.text.sanitize import one_line, visible
from tui.text.wording import plural

from ..widgets.dialog_box import DialogBox

if TYPE_CHECKING:
    from tui.agent.door import Session


def sent_layout(session: Session | None, files: list[MemoryFile]) -> tuple[list[tuple[MemoryFile, str, str, int]], str]:
    """Per file: (file, text as sent, where it sits, tokens); and one line about the memory block."""
    index, memory_text = None, ""
    if session is not None:
        blocks = session.system_blocks()  # builds the system prompt (and reads the files) if no request did yet
        memory_text = session.memory_text
        index = next((i for i, b in enumerate(blocks) if memory_text and b.get("text") == memory_text), None)
    rows = []
    for n, (memory, text, start) in enumerate(memory_layout(files), start=1):
        place = (
            f"system[{index}] · {n} of {len(files)} · chars {start:,}–{start + len(text):,}"
            if index is not None
            else f"{n} of {len(files)}"
        )
        rows.append((memory, text, place, (len(text) + 3) // 4))
    if index is None:
        return rows, "Not sent yet: the memory block is built with the next request."
    tokens = (len(memory_text) + 3) // 4
    return rows, (
        f"Sent as system[{index}] of the system prompt (~{plural(tokens, 'token')}), after the rules and before "
        "the environment; read again after `#` lines, /init and every compaction."
    )


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

    def __init__(
        self, files: list[MemoryFile] | None = None, project_dir: Path | None = None, session: Session | None = None
    ) -> None:
        super().__init__()
        self.session = session if hasattr(session, "memory_files") else None
        if files is None and self.session is not None:
            self.session.system_blocks()
            files = list(self.session.memory_files)
        self.files = files if files is not None else load_memory(project_dir or Path.cwd())
        self.rows, self.where = sent_layout(self.session, self.files)
        on_disk = {str(f.path): f.text for f in self._on_disk(project_dir or Path.cwd())} if self.session else {}
        #: files whose text on disk is no longer what was sent
        self.stale = {str(f.path) for f in self.files if self.session and on_disk.get(str(f.path)) != f.text}
        rules = getattr(self.session, "path_rules", None)
        for rule in rules.sent if rules is not None else ():  # `.claude/rules` with `paths:`, sent once matched
            text = f"Contents of {rule.path}:\n\n{rule.text.rstrip()}"
            self.rows.append((rule, text, "after a tool result (paths: matched)", (len(text) + 3) // 4))
            self.files = [*self.files, rule]

    def _on_disk(self, project_dir: Path) -> list[MemoryFile]:
        """The memory files as the session would load them now (through its import rules)."""
        session = self.session
        if session is None or not hasattr(session, "policy"):
            return load_memory(project_dir)
        return load_memory(project_dir, session.memory_check())

    def compose(self) -> ComposeResult:
        with DialogBox(id="memory-box"):
            with Vertical(classes="dialog-head"):
                yield Static("Memory files, as sent", classes="title")
                yield Static(Text(self.where, style="dim"), id="memory-where")
                if not self.files:
                    yield Static(
                        "No memory files loaded. Put instructions in AGENTS.md or CLAUDE.md at the project root "
                        "(or in the user config folder); `@path` lines import other files.",
                        id="memory-empty",
                    )
            yield DataTable(id="memory-files", cursor_type="row")
            with VerticalScroll(id="memory-view"):
                yield Static("", id="memory-text", markup=False)
            yield Static(Text("Up/Down choose a file · Esc closes", style="dim"), classes="dialog-answers")

    def on_mount(self) -> None:
        table = self.query_one("#memory-files", DataTable)
        table.add_columns("File", "Imported by", "Position", "Tokens", "Lines")
        for index, (memory, _, place, tokens) in enumerate(self.rows):
            name = one_line(str(memory.path)) + (" (changed on disk since)" if str(memory.path) in self.stale else "")
            table.add_row(
                Text(name),
                Text(one_line(str(memory.imported_from))) if memory.imported_from else "—",
                place,
                f"~{tokens:,}",
                str(len(memory.text.splitlines())),
                key=str(index),
            )
        if self.files:
            self._show(0)
            table.focus()

    def _show(self, index: int) -> None:
        memory, text, _, _ = self.rows[index]
        shown = Text(visible(text))
        if str(memory.path) in self.stale:
            shown = (
                Text(
                    f"{memory.path} changed on disk since it was sent; this is the text the model has:\n\n",
                    style="yellow",
                )
                + shown
            )
        self.query_one("#memory-text", Static).update(shown)

    @on(DataTable.RowHighlighted, "#memory-files")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.row_key.value is not None:
            self._show(int(event.row_key.value))

    def action_close(self) -> None:
        self.dismiss(None)
