"""The model asks the user: AskUserQuestion's multiple-choice questions and ExitPlanMode's plan approval.

Both are vetted dialogs (see `vetted_screen`): only keys pressed while the dialog is on screen
answer them. Up/Down and Enter or a digit choose; a multi-select question toggles with Space
or a digit and confirms with Enter; the last option, "Other", opens a box for a free answer.
The dialogs return the answer dict the engine waits for (`UserQuestionAsked.reply`), or None.
"""

from __future__ import annotations

from concurrent.futures import Future
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Input, Markdown, OptionList, Static
from textual.widgets.option_list import Option

from tui.text.sanitize import one_line, visible

from ..widgets.dialog_box import DialogBox
from .vetted_screen import VettedScreen

OTHER = "Other (type your own answer)"
PLAN_CHOICES = (
    ("auto", "1  Yes, and auto-accept edits"),
    ("ask", "2  Yes, and ask for each edit"),
    ("keep", "3  No, keep planning"),
)
DIGITS = [Binding(str(n), f"pick({n})", f"Choose {n}", show=False, id=f"question_pick_{n}") for n in range(1, 6)]


class AskDialog(VettedScreen):
    """What both dialogs share: the vetting, the close-when-withdrawn watch, the help line."""

    DEFAULT_CSS = """
    AskDialog { align: center middle; background: $background 60%; }
    .ask-box { width: 96; max-width: 95%; height: auto; max-height: 90%; padding: 1 2;
               border: thick $accent; background: $surface; }
    AskDialog.-arming .ask-box { border: thick $panel-lighten-2; }
    #question-text { margin: 1 0; max-height: 8; overflow-y: auto; }
    #question-options, #plan-choices { height: auto; border: none; padding: 0; background: $surface; }
    #plan-view { padding: 0 1; background: $background; }
    AskDialog .dialog-head { margin-bottom: 1; }
    #question-box .dialog-head { margin-bottom: 0; }
    AskDialog .dialog-answers { margin-top: 1; }
    #question-other, #plan-feedback { margin: 0 0 0 3; }
    .ask-help { margin-top: 1; height: 1; }
    """

    def __init__(self, reply: Future[Any], grace_s: float) -> None:
        super().__init__()
        self.reply = reply
        self.start_vetting(grace_s)
        self._answered = False

    def on_mount(self) -> None:  # VettedScreen.on_mount runs too (Textual calls handlers along the MRO)
        self.set_interval(0.2, self._withdrawn_check)

    def _withdrawn_check(self) -> None:
        if self.reply.done() and not self._answered:  # interrupted: the engine stopped waiting
            self._answered = True
            self.dismiss(None)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("pick", "toggle_option") and isinstance(self.focused, Input):
            return False  # digits and spaces typed into an answer box are text
        return True

    def finish(self, answer: dict[str, Any] | None) -> None:
        """Answer, unless the key that asked for it came in a burst."""
        if not self._answered:
            self.answer_when_sure(lambda: self._answer(answer))

    def _answer(self, answer: dict[str, Any] | None) -> None:
        if not self._answered:
            self._answered = True
            self.dismiss(answer)

    def show_notice(self, notice: str) -> None:
        if self.is_mounted:
            self.query_one(".ask-help", Static).update(Text(notice, style="bold"))


class QuestionDialog(AskDialog):
    """AskUserQuestion: one question at a time; dismissed with {"answers": {question: answer}} or None (Esc)."""

    BINDINGS = [
        *DIGITS,
        Binding("space", "toggle_option", "Toggle", show=False, id="question_toggle"),
        Binding("escape", "dismiss_all", "Skip the questions", id="question_escape"),
    ]
    AUTO_FOCUS = "#question-options"

    def __init__(self, questions: list[dict[str, Any]], reply: Future[Any], *, grace_s: float = 0.0) -> None:
        super().__init__(reply, grace_s)
        self.questions = questions
        self.index = 0
        self.answers: dict[str, str] = {}
        self.checked: set[int] = set()

    @property
    def question(self) -> dict[str, Any]:
        return self.questions[self.index]

    def compose(self) -> ComposeResult:
        with DialogBox(id="question-box", classes="ask-box"):
            with Vertical(classes="dialog-head"):
                yield Static("", id="question-header")
                yield Static("", id="question-text")
            yield OptionList(id="question-options", classes="dialog-body")
            with Vertical(classes="dialog-answers"):
                yield Input("", id="question-other", placeholder="your answer, Enter to send")
                yield Static("", classes="ask-help")

    def on_mount(self) -> None:  # VettedScreen.on_mount runs too (Textual calls handlers along the MRO)
        self._show()

    def _show(self) -> None:
        q = self.question
        tag = f"[{self.index + 1}/{len(self.questions)}] {one_line(str(q.get('header') or ''))}"
        self.query_one("#question-header", Static).update(Text(tag, style="bold cyan"))
        self.query_one("#question-text", Static).update(Text(visible(q["question"]), style="bold"))
        self.checked = set()
        self._fill_options()
        self.query_one("#question-other", Input).display = False
        self.query_one("#question-other", Input).value = ""
        last = len(q["options"]) + 1
        help_text = (
            f"Space or 1-{last} toggle · Enter confirms · Esc skips"
            if q.get("multiSelect")
            else f"Enter or 1-{last} choose · Esc skips"
        )
        self.query_one(".ask-help", Static).update(Text(help_text, style="dim"))
        self.query_one("#question-options", OptionList).focus()

    def _fill_options(self) -> None:
        options = self.query_one("#question-options", OptionList)
        highlighted = options.highlighted or 0
        options.clear_options()
        multi = bool(self.question.get("multiSelect"))
        labels = self._labels()
        for n, option in enumerate([*self.question["options"], {"label": OTHER, "description": ""}]):
            mark = ("[x] " if n in self.checked else "[ ] ") if multi and n < len(labels) else ""
            prompt = Text(f"{n + 1}  {mark}{one_line(option['label'])}", style="bold")
            if option.get("description"):
                prompt.append(f"\n      {one_line(str(option['description']))}", style="dim")
            options.add_option(Option(prompt, id=str(n)))
        options.highlighted = min(highlighted, options.option_count - 1)

    def _labels(self) -> list[str]:
        return [str(o["label"]) for o in self.question["options"]]

    def action_pick(self, number: int) -> None:
        if not self.armed or number > len(self._labels()) + 1:
            return
        self.query_one("#question-options", OptionList).highlighted = number - 1
        self._choose(number - 1, toggle=bool(self.question.get("multiSelect")))

    def action_toggle_option(self) -> None:
        highlighted = self.query_one("#question-options", OptionList).highlighted
        if self.armed and highlighted is not None and self.question.get("multiSelect"):
            self._choose(highlighted, toggle=True)

    @on(OptionList.OptionSelected, "#question-options")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        if not self.armed or event.option.id is None:
            return
        if self.question.get("multiSelect") and int(event.option.id) < len(self._labels()):
            self._next(", ".join(self._labels()[i] for i in sorted(self.checked)) if self.checked else None)
        else:
            self._choose(int(event.option.id), toggle=False)

    def _choose(self, index: int, *, toggle: bool) -> None:
        if index == len(self._labels()):  # Other: a free answer
            box = self.query_one("#question-other", Input)
            box.display = True
            box.focus()
            return
        if toggle:
            self.checked ^= {index}
            self._fill_options()
            return
        self._next(self._labels()[index])

    @on(Input.Submitted, "#question-other")
    def _other(self, event: Input.Submitted) -> None:
        event.stop()
        if self.armed and event.value.strip():
            picked = [self._labels()[i] for i in sorted(self.checked)]
            self._next(", ".join([*picked, event.value.strip()]))

    def _next(self, answer: str | None) -> None:
        if answer is None:
            self.show_notice("Choose at least one option (Space), then press Enter.")
            return
        self.answers[self.question["question"]] = answer
        if self.index + 1 < len(self.questions):
            self.index += 1
            self._show()
        else:
            self.finish({"answers": dict(self.answers)})

    def action_dismiss_all(self) -> None:
        self.finish(None)


class PlanDialog(AskDialog):
    """ExitPlanMode: the plan as Markdown and three answers; "keep planning" takes optional feedback."""

    BINDINGS = [*DIGITS[:3], Binding("escape", "keep", "Keep planning", id="plan_escape")]
    AUTO_FOCUS = "#plan-choices"

    def __init__(self, plan: str, reply: Future[Any], *, grace_s: float = 0.0) -> None:
        super().__init__(reply, grace_s)
        self.plan = plan

    def compose(self) -> ComposeResult:
        with DialogBox(id="plan-box", classes="ask-box"):
            yield Static(Text("Ready to code? Here is the plan:", style="bold"), classes="dialog-head")
            with VerticalScroll(id="plan-view", classes="dialog-body"):
                yield Markdown(visible(self.plan))
            with Vertical(classes="dialog-answers"):
                yield OptionList(*[Option(label, id=key) for key, label in PLAN_CHOICES], id="plan-choices")
                yield Input("", id="plan-feedback", placeholder="what to change (optional), Enter to send")
                yield Static(Text("Enter or 1-3 choose · Esc keeps planning", style="dim"), classes="ask-help")

    def on_mount(self) -> None:  # VettedScreen.on_mount runs too (Textual calls handlers along the MRO)
        self.query_one("#plan-feedback").display = False
        self.query_one("#plan-choices", OptionList).highlighted = 0

    def action_pick(self, number: int) -> None:
        if self.armed:
            self._choose(PLAN_CHOICES[number - 1][0])

    @on(OptionList.OptionSelected, "#plan-choices")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        if self.armed and event.option.id:
            self._choose(event.option.id)

    def _choose(self, key: str) -> None:
        if key != "keep":
            self.finish({"choice": key, "feedback": ""})
            return
        self.query_one("#plan-choices", OptionList).highlighted = 2
        box = self.query_one("#plan-feedback", Input)
        box.display = True
        box.focus()

    @on(Input.Submitted, "#plan-feedback")
    def _feedback(self, event: Input.Submitted) -> None:
        event.stop()
        if self.armed:
            self.finish({"choice": "keep", "feedback": event.value.strip()})

    def action_keep(self) -> None:
        self.finish({"choice": "keep", "feedback": self.query_one("#plan-feedback", Input).value.strip()})
