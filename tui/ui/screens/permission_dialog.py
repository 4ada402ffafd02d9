"""The permission dialog: what a gated tool wants to do, and four numbered answers.

1 allow once (Enter), 2 allow for this session, 3 always allow (with the exact rule to
save, editable), 4 deny (with an optional reason for the model). Keys typed in the first
`grace_s` seconds are ignored, so a keystroke meant for the prompt cannot approve a
command. The dialog only returns a PermissionReply; the caller resolves the future.
"""

from __future__ import annotations

import time
from typing import Any

from rich.syntax import Syntax
from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from tui.agent.events import PermissionRequested
from tui.agent.permission_gate import PermissionReply
from tui.sanitize import one_line, visible

from ..bindings import bindings_for

DEFAULT_GRACE_S = 0.5
CHOICES = (
    ("once", "1  Allow once"),
    ("session", "2  Allow for this session"),
    ("always", "3  Always allow (save a rule to the project settings)"),
    ("deny", "4  Deny (optionally tell the model why)"),
)


def preview_renderable(event: PermissionRequested) -> Any:
    """A diff for edits, the command and directory for Bash, else the raw preview text."""
    preview = event.preview or {}
    kind = preview.get("kind")
    text = visible(str(preview.get("text", "")))  # bidi controls too: what is shown is what runs
    if kind == "diff":
        return Syntax(text or "(no changes)", "diff", theme="monokai", word_wrap=True)
    if kind == "command":
        out = Text()
        out.append("$ ", style="bold")
        out.append(text, style="bold")
        if preview.get("cwd"):
            out.append(f"\nin {one_line(str(preview['cwd']))}", style="dim")
        return out
    return Text(text or visible(str(event.input)))


class PermissionDialog(ModalScreen[PermissionReply]):
    """Modal approval for one tool call."""

    BINDINGS: list[Binding] = bindings_for("dialog")  # type: ignore[assignment]
    AUTO_FOCUS = "#choices"

    def __init__(self, event: PermissionRequested, *, grace_s: float = DEFAULT_GRACE_S, queued: int = 0) -> None:
        super().__init__()
        self.event = event
        self.grace_s = grace_s
        self.queued = queued
        self._opened = time.monotonic()
        self._answered = False

    def compose(self) -> ComposeResult:
        ev = self.event
        with Vertical(id="permission-box"):
            label = ev.label if ev.label.startswith(ev.tool_name) else f"{ev.tool_name}: {ev.label}"
            title = Text.assemble(("Allow ", "bold"), (one_line(label), "bold"), "?")
            yield Static(title, id="permission-title")
            if ev.reason:
                yield Static(Text(visible(ev.reason), style="dim"), id="permission-reason")
            with VerticalScroll(id="permission-preview"):
                yield Static(preview_renderable(ev))
            yield OptionList(*[Option(label, id=key) for key, label in CHOICES], id="choices")
            yield Input(ev.suggested_rule, id="rule-input", placeholder="rule to save, e.g. Bash(npm test:*)")
            yield Input("", id="reason-input", placeholder="reason for the model (optional), Enter to deny")
            yield Static(self._help_text(), id="permission-help")

    def _help_text(self) -> Text:
        more = f" · {self.queued} more waiting" if self.queued else ""
        return Text(f"Enter choose · 1-4 pick · Esc deny{more}", style="dim")

    def set_queued(self, queued: int) -> None:
        """Show how many more approvals wait behind this one."""
        self.queued = queued
        if self.is_mounted:
            self.query_one("#permission-help", Static).update(self._help_text())

    def on_mount(self) -> None:
        self.query_one("#rule-input").display = False
        self.query_one("#reason-input").display = False
        choices = self.query_one("#choices", OptionList)
        choices.highlighted = 0
        if self.grace_s > 0:
            self.add_class("-arming")
            self.set_timer(self.grace_s, lambda: self.remove_class("-arming"))

    @property
    def armed(self) -> bool:
        """False during the grace period after opening."""
        return time.monotonic() - self._opened >= self.grace_s

    async def _on_key(self, event: events.Key) -> None:
        # Keys pressed before the grace period ends never reach a binding or a widget.
        if not self.armed:
            event.stop()
            event.prevent_default()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("choose", "deny_now") and not self.armed:
            return False
        return True

    @on(OptionList.OptionSelected, "#choices")
    def _option_selected(self, event: OptionList.OptionSelected) -> None:
        if self.armed and event.option.id:
            self.action_choose(event.option.id)

    def action_choose(self, key: str) -> None:
        """Answer with scope `key`; 3 and 4 first open their input, Enter there confirms."""
        if key in ("once", "session"):
            self._finish(PermissionReply(True, scope=key))  # type: ignore[arg-type]
            return
        target = "#rule-input" if key == "always" else "#reason-input"
        other = "#reason-input" if key == "always" else "#rule-input"
        self.query_one(other).display = False
        box = self.query_one(target, Input)
        if box.display and box.has_focus:
            self._submit_input(box)
            return
        box.display = True
        box.focus()
        self.query_one("#choices", OptionList).highlighted = 2 if key == "always" else 3

    @on(Input.Submitted)
    def _input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self.armed:
            self._submit_input(event.input)

    def _submit_input(self, box: Input) -> None:
        if box.id == "rule-input":
            rule = box.value.strip() or self.event.suggested_rule
            self._finish(PermissionReply(True, scope="always", rule=rule))
        else:
            self._finish(PermissionReply(False, reason=box.value.strip()))

    def action_deny_now(self) -> None:
        reason = self.query_one("#reason-input", Input).value.strip()
        self._finish(PermissionReply(False, reason=reason))

    def _finish(self, reply: PermissionReply) -> None:
        if not self._answered:
            self._answered = True
            self.dismiss(reply)

    def withdraw(self) -> None:
        """Close without an answer (the turn was interrupted and the engine already denied)."""
        if not self._answered:
            self._answered = True
            self.dismiss(None)
