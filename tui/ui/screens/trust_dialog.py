"""Asks once per folder whether its own allow rules may count (workspace trust).

A repository can ship `.agent-tui/settings.toml` or `.claude/settings.json` with allow
rules written by someone else; they only count after the user trusts the folder. Like the
permission dialog, only a key pressed while it is on screen answers it (VettedScreen).
"""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Button, Static

from tui.sanitize import one_line

from ..answer_guard import GRACE_S
from .vetted_screen import VettedScreen


class TrustDialog(VettedScreen):
    """Trust this folder? Dismisses with True (trust) or False (keep its allow rules off)."""

    DEFAULT_CSS = """
    TrustDialog { align: center middle; }
    TrustDialog > #trust-box {
        width: 84; max-width: 95%; height: auto; max-height: 90%;
        border: thick $warning; background: $surface; padding: 1 2;
    }
    TrustDialog #trust-rules { color: $text-muted; margin: 1 0; max-height: 12; overflow-y: auto; }
    TrustDialog #trust-buttons { height: auto; margin-top: 1; }
    TrustDialog Button { margin-right: 2; }
    """
    BINDINGS = [
        Binding("y,1", "answer(True)", "Trust", id="trust.yes"),
        Binding("n,2,escape", "answer(False)", "Don't trust", id="trust.no"),
    ]

    def __init__(self, project_dir: Path, rules: list[str], *, grace_s: float = GRACE_S,
                 mcp_servers: list[str] | None = None) -> None:
        super().__init__()
        self.project_dir = project_dir
        self.rules = rules
        #: the servers of the folder's .mcp.json, which start only in a trusted folder
        self.mcp_servers = mcp_servers or []
        self.start_vetting(grace_s)

    def compose(self) -> ComposeResult:
        listed = "\n".join(f"  allow  {one_line(rule)}" for rule in self.rules[:20])
        more = f"\n  … and {len(self.rules) - 20} more" if len(self.rules) > 20 else ""
        with Vertical(id="trust-box"):
            yield Static(Content.from_markup("[b]Do you trust the files in $dir?[/b]", dir=one_line(str(self.project_dir))))
            if self.rules:
                yield Static(
                    "This folder's settings allow these without asking. Someone else may have written them, "
                    "so they only count once you trust the folder. Its deny and ask rules count either way."
                )
                yield Static(listed + more, id="trust-rules", markup=False)
            if self.mcp_servers:
                names = ", ".join(one_line(name) for name in self.mcp_servers[:20])
                yield Static(f"Its .mcp.json names MCP servers, which run commands on your behalf: {names}. None "
                             "starts in a folder you do not trust; once you do, you choose which.", markup=False)
            with Horizontal(id="trust-buttons"):
                yield Button("1 Trust this folder", id="trust-yes", variant="warning")
                yield Button("2 Don't trust", id="trust-no", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#trust-no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.action_answer(event.button.id == "trust-yes")

    def action_answer(self, trusted: bool) -> None:
        if self.armed:
            self.answer_when_sure(lambda: self.dismiss(trusted))
