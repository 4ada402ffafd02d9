"""Asks once which of a trusted folder's new `.mcp.json` servers may start (all / choose / none).

A project's `.mcp.json` can name any command; like Claude Code, agent-tui starts none of its
servers until the user has said yes. Only a key pressed while the dialog is on screen answers
it (VettedScreen). Dismisses with (enabled names, disabled names), or None for "ask me later".
"""

from __future__ import annotations

from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, SelectionList, Static

from tui.text.sanitize import one_line
from tui.text.wording import plural

from ..answer_guard import GRACE_S
from ..widgets.dialog_box import DialogBox
from .vetted_screen import VettedScreen

#: (name, what it runs or where it connects)
ServerLine = tuple[str, str]


class McpApprovalDialog(VettedScreen):
    """New MCP servers in .mcp.json: enable all, choose some, or none."""

    DEFAULT_CSS = """
    McpApprovalDialog { align: center middle; }
    McpApprovalDialog > #mcp-box {
        width: 90; max-width: 95%; height: auto; max-height: 90%;
        border: thick $warning; background: $surface; padding: 1 2;
    }
    McpApprovalDialog #mcp-servers { color: $text-muted; margin: 1 0 0 0; }
    McpApprovalDialog #mcp-choose { height: auto; margin: 1 0 0 0; display: none; }
    McpApprovalDialog.-choosing #mcp-choose { display: block; }
    McpApprovalDialog.-choosing #mcp-servers, McpApprovalDialog.-choosing #mcp-buttons { display: none; }
    McpApprovalDialog #mcp-confirm { display: none; margin-top: 1; }
    McpApprovalDialog.-choosing #mcp-confirm { display: block; }
    McpApprovalDialog #mcp-buttons { height: auto; margin-top: 1; }
    McpApprovalDialog Button { margin-right: 2; }
    McpApprovalDialog.-cramped Button { min-width: 0; margin-right: 1; }
    """
    BINDINGS = [
        Binding("1", "answer('all')", "Enable all", id="mcp_approval.all"),
        Binding("2", "choose", "Choose", id="mcp_approval.choose"),
        Binding("3", "answer('none')", "None", id="mcp_approval.none"),
        Binding("enter", "confirm", "Enable the ticked ones", id="mcp_approval.confirm", show=False, priority=True),
        Binding("escape", "later", "Ask me later", id="mcp_approval.later"),
    ]

    def __init__(self, servers: list[ServerLine], *, grace_s: float = GRACE_S) -> None:
        super().__init__()
        self.servers = servers
        self.start_vetting(grace_s)

    def compose(self) -> ComposeResult:
        count = len(self.servers)
        listed = "\n".join(f"  {one_line(name)}: {one_line(what)}" for name, what in self.servers)
        with DialogBox(id="mcp-box"):
            yield Static(f"[b]{plural(count, 'new MCP server')} in this folder's .mcp.json[/b]", classes="dialog-head")
            with VerticalScroll(classes="dialog-body"):
                yield Static(
                    "MCP servers run commands or reach services on your behalf. Someone else may have written "
                    "this file, so its servers start only once you say so. Their tool calls still ask first.",
                    markup=False,
                )
                yield Static(listed, id="mcp-servers", markup=False)
                yield SelectionList[str](
                    *[(one_line(f"{name}: {what}"), name, True) for name, what in self.servers], id="mcp-choose"
                )
            with Vertical(classes="dialog-answers"):
                yield Static("", id="mcp-notice", classes="dialog-notice")
                yield Static(
                    "Space ticks or unticks a server, Enter enables the ticked ones, Esc asks again next time.",
                    id="mcp-confirm",
                    markup=False,
                )
                with Horizontal(id="mcp-buttons"):
                    yield Button("1 Enable all", id="mcp-all", variant="warning")
                    yield Button("2 Choose…", id="mcp-choose-button")
                    yield Button("3 None", id="mcp-none", variant="primary")

    def on_mount(self) -> None:  # VettedScreen's on_mount runs too (Textual calls each class's handler)
        self.query_one("#mcp-none", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "mcp-choose-button":
            self.action_choose()
        else:
            self.action_answer("all" if event.button.id == "mcp-all" else "none")

    def action_answer(self, which: str) -> None:
        names = [name for name, _ in self.servers]
        if self.armed and not self.has_class("-choosing"):
            chosen = (names, []) if which == "all" else ([], names)
            self.answer_when_sure(lambda: self.dismiss(chosen))

    def action_choose(self) -> None:
        if self.armed and not self.has_class("-choosing"):
            self.add_class("-choosing")
            self.query_one("#mcp-choose", SelectionList).focus()

    def action_confirm(self) -> None:
        if not self.has_class("-choosing"):
            raise SkipAction()  # Enter presses the focused button
        if not self.armed:
            return
        ticked = list(self.query_one("#mcp-choose", SelectionList).selected)
        names = [name for name, _ in self.servers]
        self.answer_when_sure(lambda: self.dismiss((ticked, [n for n in names if n not in ticked])))

    def action_later(self) -> None:
        if self.armed:
            self.dismiss(None)
