"""F1 help: every key binding (from the registry) and every slash command."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from ..bindings import grouped
from ..widgets.dialog_box import DialogBox

_KEY_NAMES = {
    "ctrl": "Ctrl",
    "shift": "Shift",
    "escape": "Esc",
    "enter": "Enter",
    "up": "Up",
    "down": "Down",
    "end": "End",
    "home": "Home",
    "tab": "Tab",
    "pageup": "PgUp",
    "pagedown": "PgDn",
}


def keys_text(keys: str) -> str:
    """'ctrl+j,shift+enter' -> 'Ctrl+J / Shift+Enter'."""

    def one(key: str) -> str:
        return "+".join(_KEY_NAMES.get(part, part.upper()) for part in key.split("+"))

    return " / ".join(one(k) for k in keys.split(","))


def help_table() -> Table:
    from ..commands import SLASH_COMMANDS, load_session_commands

    load_session_commands()

    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold", no_wrap=True)
    table.add_column()
    for group, specs in grouped().items():
        table.add_row(Text(group, style="bold underline"), "")
        for spec in specs:
            table.add_row(keys_text(spec.keys), spec.description)
        table.add_row("", "")
    table.add_row(Text("Slash commands", style="bold underline"), "")
    for command in SLASH_COMMANDS.values():
        table.add_row(f"/{command.name}" + (f" {command.usage}" if command.usage else ""), command.description)
    table.add_row("", "")
    table.add_row(Text("Tips", style="bold underline"), "")
    for tip, text in TIPS:
        table.add_row(tip, text)
    return table


#: what the key registry cannot say: keys that act in context
TIPS = (
    (
        "Open a tool block",
        "Tab until its title is highlighted (the prompt, the tool panel, then the conversation's "
        "blocks), then Enter; Enter again folds it",
    ),
    ("Esc Esc", "on an empty prompt, while no turn runs: the rewind list (also /rewind)"),
    ("Esc", "while a turn runs: interrupt it; in a dialog: deny or close"),
    ("@path, !cmd, #note", "attach a file, run a shell command, add a line to a memory file"),
    ("Select text", "hold Shift (or Option on macOS) while dragging to use the terminal's own selection"),
)


class HelpScreen(ModalScreen[None]):
    """Key bindings and commands, generated from the registries."""

    BINDINGS = [
        Binding("escape,f1,q", "dismiss", "Close", id="close_help"),
    ]
    #: the text scrolls with Up/Down, PgUp/PgDn, Home/End from the start, without a click first
    AUTO_FOCUS = "#help-body"

    def compose(self) -> ComposeResult:
        with DialogBox(id="help-box"):
            yield Static(
                Text("agent-tui help · ↑↓ PgUp PgDn scroll · Esc / F1 closes", style="bold"),
                classes="panel-title dialog-head",
            )
            with VerticalScroll(id="help-body", classes="dialog-body -fill"):
                yield Static(help_table())
            yield Static(Text("Esc / F1 closes this help", style="dim"), classes="dialog-answers")

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(result)
