"""`compaction = "ask"`: the context reached the threshold; compact now, with a focus, or not now.

Shows what would be summarised and what kept (turn ranges, message and token counts, pins)
before anything is dropped. A vetted dialog (see `vetted_screen`), like the plan approval.
"""

from __future__ import annotations

from concurrent.futures import Future
from typing import Any

from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from tui.agent.cost.report import short_tokens
from tui.text.sanitize import one_line
from tui.text.wording import plural

from ..widgets.dialog_box import DialogBox
from .question_dialog import DIGITS, AskDialog

CHOICES = (
    ("now", "1  Compact now"),
    ("focus", "2  Compact with a focus (say what the summary must keep)"),
    ("later", "3  Not now (asked again at the next prompt)"),
)


def plan_table(plan: dict[str, Any]) -> Table:
    """Two rows, summarised and kept: turns, messages, tokens."""
    table = Table(box=None, padding=(0, 2), header_style="bold")
    for column, justify in (("", "left"), ("turns", "left"), ("messages", "right"), ("tokens", "right")):
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    for key, label in (("summarised", "summarised"), ("kept", "kept verbatim")):
        part = plan.get(key) or {}
        turns = str(part.get("turns", "?"))
        table.add_row(
            Text(label, style="bold"), turns, f"{part.get('messages', 0):,}", f"~{short_tokens(part.get('tokens', 0))}"
        )
    return table


def plan_heading(plan: dict[str, Any]) -> Text:
    used, window = plan.get("used_tokens", 0), plan.get("window", 0) or 1
    text = Text("Compaction threshold reached: ", style="bold")
    text.append(f"{short_tokens(used)} of {short_tokens(window)} tokens in use ({used / window:.0%}). Compact now?")
    return text


def pieces_line(plan: dict[str, Any]) -> str:
    """When the history is larger than one summary request: how many it takes, and what is left out unread."""
    requests, left = plan.get("requests", 1), plan.get("left_out")
    if requests <= 1:
        return ""
    line = f"Larger than one summary request: it takes {requests}"
    if left:
        line += (
            f", and the oldest {plural(left['messages'], 'message')} (~{short_tokens(left['tokens'])} tokens) are "
            "left out unread (the transcript and /rewind keep them)"
        )
    return line + "."


class CompactionDialog(AskDialog):
    """The plan and three answers; "with a focus" opens a box for it. Esc is "not now"."""

    BINDINGS = [*DIGITS[:3], Binding("escape", "later", "Not now", id="compaction_escape")]
    AUTO_FOCUS = "#compaction-choices"
    DEFAULT_CSS = """
    #compaction-plan { margin: 1 0 0 0; }
    #compaction-choices { height: auto; border: none; padding: 0; background: $surface; }
    #compaction-focus { margin: 0 0 0 3; }
    """

    def __init__(self, plan: dict[str, Any], reply: Future[Any], *, grace_s: float = 0.0) -> None:
        super().__init__(reply, grace_s)
        self.plan = plan

    def compose(self) -> ComposeResult:
        with DialogBox(id="compaction-box", classes="ask-box"):
            with VerticalScroll(classes="dialog-body"):
                yield Static(plan_heading(self.plan))
                yield Static(plan_table(self.plan), id="compaction-plan")
                if line := pieces_line(self.plan):
                    yield Static(Text(line, style="dim"))
                pins = self.plan.get("pinned") or []
                if pins:
                    listed = "; ".join(one_line(p)[:60] for p in pins[:3])
                    yield Static(
                        Text(f"{plural(len(pins), 'pinned prompt')} kept word for word: {listed}", style="dim")
                    )
            with Vertical(classes="dialog-answers"):
                yield OptionList(*[Option(label, id=key) for key, label in CHOICES], id="compaction-choices")
                yield Input("", id="compaction-focus", placeholder="what the summary must keep, Enter to compact")
                yield Static(Text("Enter or 1-3 choose · Esc is not now", style="dim"), classes="ask-help")

    def on_mount(self) -> None:  # VettedScreen.on_mount runs too (Textual calls handlers along the MRO)
        self.query_one("#compaction-focus").display = False
        self.query_one("#compaction-choices", OptionList).highlighted = 0

    def action_pick(self, number: int) -> None:
        if self.armed:
            self._choose(CHOICES[number - 1][0])

    @on(OptionList.OptionSelected, "#compaction-choices")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        if self.armed and event.option.id:
            self._choose(event.option.id)

    def _choose(self, key: str) -> None:
        if key != "focus":
            self.finish({"choice": key, "focus": ""})
            return
        self.query_one("#compaction-choices", OptionList).highlighted = 1
        box = self.query_one("#compaction-focus", Input)
        box.display = True
        box.focus()

    @on(Input.Submitted, "#compaction-focus")
    def _focus(self, event: Input.Submitted) -> None:
        event.stop()
        if self.armed:
            focus = event.value.strip()
            self.finish({"choice": "focus" if focus else "now", "focus": focus})

    def action_later(self) -> None:
        self.finish({"choice": "later", "focus": ""})
