"""Asks once per project whether its memory files may import files from outside it (as Claude Code asks).

A CLAUDE.md or AGENTS.md `@path` line that leads outside the project (a `../` path, `~/…`, a link)
puts that file into every request's system prompt, so it is loaded only after a yes; deny rules and
`sandbox.deny_read` hold either way. Only a key pressed while the dialog is on screen answers it
(VettedScreen). Dismisses with True (allow), False (keep them out), or None (ask again next start).
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Static

from tui.text.sanitize import one_line

from ..answer_guard import GRACE_S
from ..widgets.dialog_box import DialogBox
from .vetted_screen import VettedScreen

#: below this many columns the buttons have short labels
NARROW = 64
#: (the file outside the project, the memory file importing it)
ImportLine = tuple[str, str]


class ExternalImportsDialog(VettedScreen):
    """Allow external memory imports for this project: yes or no, remembered."""

    DEFAULT_CSS = """
    ExternalImportsDialog { align: center middle; }
    ExternalImportsDialog > #imports-box {
        width: 90; max-width: 95%; height: auto; max-height: 90%;
        border: thick $warning; background: $surface; padding: 1 2;
    }
    ExternalImportsDialog #imports-files { color: $text-muted; margin: 1 0 0 0; }
    ExternalImportsDialog.-cramped Button { min-width: 0; margin-right: 1; }
    ExternalImportsDialog #imports-buttons { height: auto; margin-top: 1; }
    ExternalImportsDialog Button { margin-right: 2; }
    ExternalImportsDialog #imports-help { color: $text-muted; margin-top: 1; }
    """
    BINDINGS = [
        Binding("1,y", "answer(True)", "Allow", id="external_imports.allow"),
        Binding("2,n", "answer(False)", "Keep out", id="external_imports.deny"),
        Binding("escape", "later", "Ask me later", id="external_imports.later"),
    ]

    def __init__(self, imports: list[ImportLine], *, grace_s: float = GRACE_S) -> None:
        super().__init__()
        self.imports = imports
        self.start_vetting(grace_s)

    def compose(self) -> ComposeResult:
        listed = "\n".join(f"  {one_line(path)}  (imported by {one_line(by)})" for path, by in self.imports)
        with DialogBox(id="imports-box"):
            yield Static("[b]Allow external memory imports?[/b]", classes="dialog-head")
            with VerticalScroll(classes="dialog-body"):
                yield Static(
                    "This project's CLAUDE.md / AGENTS.md import files from outside the project. Their text "
                    "would go with every request. Deny rules and sandbox.deny_read still keep secrets out. "
                    "The answer is remembered for this project.",
                    markup=False,
                )
                yield Static(listed, id="imports-files", markup=False)
            with Vertical(classes="dialog-answers"):
                with Horizontal(id="imports-buttons"):
                    yield Button("1 Yes, allow external imports", id="imports-allow", variant="warning")
                    yield Button("2 No, keep them out", id="imports-deny", variant="primary")
                yield Static("", id="imports-notice", classes="dialog-notice")
                yield Static("1 or y allows, 2 or n keeps them out, Esc asks again next start.", id="imports-help")

    def on_mount(self) -> None:  # VettedScreen's on_mount runs too
        self.query_one("#imports-deny", Button).focus()
        self.on_resize()

    def on_resize(self, event: object = None) -> None:
        """Short labels when the long ones would not fit side by side."""
        narrow = self.app.size.width < NARROW
        self.query_one("#imports-allow", Button).label = "1 Allow" if narrow else "1 Yes, allow external imports"
        self.query_one("#imports-deny", Button).label = "2 Keep out" if narrow else "2 No, keep them out"

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.action_answer(event.button.id == "imports-allow")

    def action_answer(self, allow: bool) -> None:
        if self.armed:
            self.answer_when_sure(lambda: self.dismiss(allow))

    def action_later(self) -> None:
        if self.armed:
            self.dismiss(None)
