"""Trust this folder? The question names everything trusting switches on, each with the file it comes from.

A repository can ship hooks, MCP servers, allow rules, agents and commands written by someone else;
none of them runs until the user trusts the folder. The same dialog answers `/trust` in either
direction (trust, or stop trusting). Like the permission dialog, only a key pressed while it is on
screen answers it (VettedScreen).
"""

from __future__ import annotations

from itertools import groupby

from rich.console import Group
from rich.padding import Padding
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Button, Static

from tui.text.sanitize import one_line, visible
from tui.text.wording import plural
from tui.trust.inventory import FolderInventory

from ..answer_guard import GRACE_S
from ..widgets.dialog_box import DialogBox
from .vetted_screen import VettedScreen

#: below this size the dialog fills the screen and the list takes what is left
SMALL_WIDTH, SMALL_HEIGHT = 90, 30


def inventory_lines(inventory: FolderInventory) -> list[tuple[int, str, str]]:
    """The list as (indent, style, text) lines: per kind a heading with its count and what trusting does,
    then its items under the files they come from; last, the files that would be skipped anyway."""
    lines: list[tuple[int, str, str]] = []
    for kind, items in inventory.by_kind():
        if lines:
            lines.append((0, "", ""))
        size = kind.size(items)
        lines.append((0, "bold", f"{kind.counted(size)} {kind.effect_for(size)}"))
        if kind.one_per_line:
            for path, group in groupby(items, key=lambda i: i.path):
                lines.append((2, "dim", one_line(inventory.shown(path))))
                lines += [(4, "", visible(item.text)) for item in group]
        else:
            lines.append((2, "", ", ".join(f"{one_line(i.text)} ({one_line(inventory.shown(i.path))})" for i in items)))
    if inventory.problems:
        lines += [(0, "", ""), (0, "bold", "Skipped even when trusted")]
        lines += [(2, "yellow", visible(p.replace(str(inventory.project_dir) + "/", ""))) for p in inventory.problems]
    return lines


def inventory_renderable(inventory: FolderInventory) -> Group:
    """The lines with hanging indents (a long command wraps under itself, not under the heading)."""
    return Group(
        *(Padding(Text(text, style=style), (0, 0, 0, indent)) for indent, style, text in inventory_lines(inventory))
    )


def either_way_text(inventory: FolderInventory) -> str:
    """What counts whether or not the folder is trusted."""
    commands, skills = inventory.catalog_counts
    parts = [
        p for p in (plural(commands, "command") if commands else "", plural(skills, "skill") if skills else "") if p
    ]
    verb = "works" if commands + skills == 1 else "work"
    typed = f"its {' and '.join(parts)} {verb} as prompts you type, " if parts else ""
    return f"Either way {typed}its deny and ask rules count, and every tool call that needs it still asks."


class TrustDialog(VettedScreen):
    """Trust this folder (or stop trusting it)? Dismisses with True to make the change, False to leave it."""

    DEFAULT_CSS = """
    TrustDialog { align: center middle; background: $background 60%; }
    TrustDialog > #trust-box {
        width: 100; max-width: 95%; height: auto; max-height: 90%;
        border: thick $warning; background: $surface; padding: 1 2;
    }
    TrustDialog.-arming > #trust-box { border: thick $panel-lighten-2; }
    TrustDialog #trust-items { padding: 0 1; background: $background; }
    TrustDialog .dialog-head { margin-bottom: 1; }
    TrustDialog.-small .dialog-head { margin-bottom: 0; }
    TrustDialog #trust-either { color: $text-muted; margin-top: 1; }
    TrustDialog #trust-buttons { height: auto; margin-top: 1; }
    TrustDialog Button { margin-right: 2; }
    TrustDialog #trust-scroll-hint { color: $text-muted; width: 1fr; height: 3; content-align: right middle; }
    TrustDialog.-small > #trust-box {
        width: 100%; max-width: 100%; height: 100%; max-height: 100%; padding: 0 1; border: round $warning;
    }
    TrustDialog.-small #trust-why, TrustDialog.-small #trust-either { display: none; }
    TrustDialog.-small #trust-items { height: 1fr; margin: 0; }
    TrustDialog.-small #trust-buttons { margin-top: 0; }
    TrustDialog.-small #trust-scroll-hint { display: none; }
    """
    BINDINGS = [
        Binding("y,1", "answer(True)", "Yes", id="trust.yes"),
        Binding("n,2,escape", "answer(False)", "No", id="trust.no"),
        Binding("up", "scroll_items('up')", "Scroll", show=False, id="trust.scroll_up"),
        Binding("down", "scroll_items('down')", "Scroll", show=False, id="trust.scroll_down"),
        Binding("pageup", "scroll_items('page_up')", "Scroll", show=False, id="trust.page_up"),
        Binding("pagedown", "scroll_items('page_down')", "Scroll", show=False, id="trust.page_down"),
    ]

    def __init__(self, inventory: FolderInventory, *, grace_s: float = GRACE_S, untrust: bool = False) -> None:
        super().__init__()
        self.inventory = inventory
        #: the question is whether to stop trusting a trusted folder (`/trust` there)
        self.untrust = untrust
        self.start_vetting(grace_s)

    def compose(self) -> ComposeResult:
        folder = one_line(str(self.inventory.project_dir))
        with DialogBox(id="trust-box"):
            with Vertical(classes="dialog-head"):
                if self.untrust:
                    yield Static(Content.from_markup("[b]Stop trusting $dir?[/b]", dir=folder), id="trust-title")
                    why = (
                        "Trusting it switched these on; they stop at once if you stop trusting it."
                        if self.inventory
                        else "It brings nothing that trust switches on."
                    )
                else:
                    yield Static(
                        Content.from_markup("[b]Do you trust the files in $dir?[/b]", dir=folder), id="trust-title"
                    )
                    why = (
                        "Its own files would run commands and widen permissions. Someone else may have written "
                        "them, so none of this is used until you trust the folder."
                    )
                yield Static(why, id="trust-why", markup=False)
            with VerticalScroll(id="trust-items", classes="dialog-body"):
                yield Static(inventory_renderable(self.inventory), id="trust-list")
            with Vertical(id="trust-answers", classes="dialog-answers"):
                yield Static(either_way_text(self.inventory), id="trust-either", markup=False)
                yield Static("", id="trust-notice", classes="dialog-notice")
                with Horizontal(id="trust-buttons"):
                    yes, no = self.labels(small=False)
                    yield Button(yes, id="trust-yes", variant="warning")
                    yield Button(no, id="trust-no", variant="primary")
                    yield Static("↑↓ PgUp PgDn scroll the list", id="trust-scroll-hint")

    def on_mount(self) -> None:  # VettedScreen's on_mount runs too
        for button in self.query("#trust-no").results(Button):  # none when the app closes as it opens
            button.focus()
        self._fit(self.app.size.width, self.app.size.height)

    def on_resize(self, event: events.Resize) -> None:
        self._fit(self.app.size.width, self.app.size.height)

    def labels(self, *, small: bool) -> tuple[str, str]:
        """The two buttons' labels (short ones on a narrow screen)."""
        if self.untrust:
            return ("1 Stop", "2 Keep") if small else ("1 Stop trusting", "2 Keep trusting")
        return ("1 Trust", "2 Don't") if small else ("1 Trust this folder", "2 Don't trust")

    def _fit(self, width: int, height: int) -> None:
        small = width < SMALL_WIDTH or height < SMALL_HEIGHT
        self.set_class(small, "-small")
        for button, label in zip(self.query(Button), self.labels(small=width < SMALL_WIDTH // 2)):
            button.compact = height < SMALL_HEIGHT  # one row each: the list keeps the room
            button.label = label

    @property
    def listed(self) -> str:
        """The list as plain text, one line per entry (what the screen wraps)."""
        return "\n".join(" " * indent + text for indent, _, text in inventory_lines(self.inventory))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.action_answer(event.button.id == "trust-yes")

    def action_answer(self, change: bool) -> None:
        if self.armed:
            self.answer_when_sure(lambda: self.dismiss(change))

    def action_scroll_items(self, how: str) -> None:
        getattr(self.query_one("#trust-items", VerticalScroll), f"scroll_{how}")()
