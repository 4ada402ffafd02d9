"""The permission dialog: what a gated tool wants to do, and four numbered answers.

1 allow once (Enter), 2 allow for this session, 3 always allow (with the exact rule to
save, editable, and the settings file it goes to: project local, project shared or user), 4 deny (with an optional reason for the model). Only a key the user pressed
while looking at the dialog answers it (see `answer_guard`): keys that arrived before it was
drawn or in its first `grace_s` seconds are dropped, and a paste or a burst of keys never
answers. The dialog only returns a PermissionReply; the caller resolves the future.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.syntax import Syntax
from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from tui.agent.events import PermissionReply, PermissionRequested
from tui.config.permissions import RuleDestination, rule_destinations
from tui.mcp.names import sanitise
from tui.text.sanitize import one_line, visible

from ..answer_guard import GRACE_S
from ..bindings import bindings_for
from ..widgets.dialog_box import DialogBox
from .vetted_screen import VettedScreen

DEFAULT_GRACE_S = GRACE_S
#: below this many columns or rows the dialog fills the terminal, with short labels and a flexible preview
SMALL_WIDTH, SMALL_HEIGHT = 60, 24
SHORT_LABELS = ("1  Allow once", "2  Allow this session", "3  Always allow (save rule)", "4  Deny (tell the model why)")
PASTE_NOTICE = "Pasted text is not an answer: press Enter, 1-4 or Esc."
CHOICES = (
    ("once", "1  Allow once"),
    ("session", "2  Allow for this session"),
    ("always", "3  Always allow (save a rule to {local} or another settings file)"),
    ("deny", "4  Deny (optionally tell the model why)"),
)
#: the extra answer for an MCP tool: a rule for the whole server (`mcp__server`)
SERVER_CHOICE = ("server", "5  Always allow every tool of the MCP server {server}", "5  Allow the whole server")


def rule_places(project_dir: Path, trusted: bool = True) -> list[tuple[RuleDestination, str]]:
    """The settings files "always allow" offers, each labelled with its path and who it is for."""
    places: list[tuple[RuleDestination, str]] = []
    for key, path, who in rule_destinations(project_dir):
        if key == "user":
            shown = show_path(path)
        else:
            shown = path.relative_to(project_dir).as_posix()
            who += "" if trusted else "; counts once you trust this folder"
        places.append((key, f"save to {shown} ({who})"))
    return places


def show_path(path: Path) -> str:
    """`path` with the home folder written `~`."""
    try:
        return "~/" + path.relative_to(Path.home()).as_posix()
    except ValueError:
        return str(path)


def preview_renderable(event: PermissionRequested) -> Any:
    """A diff for edits, the command and directory for Bash, else the raw preview text."""
    preview = event.preview or {}
    kind = preview.get("kind")
    # Bash's preview names its command `command`; bidi controls go too: what is shown is what runs
    text = visible(str(preview.get("text") or preview.get("command") or ""))
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


class PermissionDialog(VettedScreen):
    """Modal approval for one tool call; dismissed with a PermissionReply (or None when withdrawn)."""

    BINDINGS = bindings_for("dialog")
    AUTO_FOCUS = "#choices"
    paste_notice = PASTE_NOTICE

    def __init__(
        self,
        event: PermissionRequested,
        *,
        grace_s: float = DEFAULT_GRACE_S,
        queued: int = 0,
        places: list[tuple[RuleDestination, str]] | None = None,
    ) -> None:
        super().__init__()
        #: where "always allow" can save the rule (the first is the default)
        self.places = places or rule_places(Path.cwd())
        self.event = event
        self.grace_s = grace_s
        self.queued = queued
        self.start_vetting(grace_s)
        self._answered = False
        #: the whole preview has been on screen (a command must be, before it can be allowed)
        self._preview_seen = False
        server = (event.preview or {}).get("mcp_server")
        #: an MCP tool also offers "every tool of this server" (Claude Code's second MCP answer)
        self.server_rule = f"mcp__{sanitise(str(server))}" if server else None
        local = self.places[0][1].removeprefix("save to ").split(" (")[0]
        choices = [(key, label.format(local=local)) for key, label in CHOICES]
        self.choices = (
            [*choices, (SERVER_CHOICE[0], SERVER_CHOICE[1].format(server=one_line(str(server))))]
            if self.server_rule
            else choices
        )

    def compose(self) -> ComposeResult:
        ev = self.event
        with DialogBox(id="permission-box"):
            label = ev.label if ev.label.startswith(ev.tool_name) else f"{ev.tool_name}: {ev.label}"
            title = Text.assemble(("Allow ", "bold"), (one_line(label), "bold"), "?")
            if ev.loop_path != "main":  # a subagent asks: say which one
                title = Text.assemble((f"subagent {one_line(ev.loop_path)} asks: ", "bold magenta"), title)
            with Vertical(classes="dialog-head"):
                yield Static(title, id="permission-title")
                if ev.reason:
                    yield Static(Text(visible(ev.reason), style="dim"), id="permission-reason")
            with VerticalScroll(id="permission-preview", classes="dialog-body"):
                yield Static(preview_renderable(ev))
            with Vertical(id="permission-answers", classes="dialog-answers"):
                yield OptionList(*[Option(label, id=key) for key, label in self.choices], id="choices")
                yield Input(ev.suggested_rule, id="rule-input", placeholder="rule to save, e.g. Bash(npm test:*)")
                yield OptionList(*[Option(f"  {label}", id=key) for key, label in self.places], id="rule-places")
                yield Input("", id="reason-input", placeholder="reason for the model (optional), Enter to deny")
                yield Static(self._help_text(), id="permission-help")

    def _help_text(self) -> Text:
        more = f" · {self.queued} more waiting" if self.queued else ""
        return Text(f"Enter choose · 1-{len(self.choices)} pick · Esc deny{more}", style="dim")

    def set_queued(self, queued: int) -> None:
        """Show how many more approvals wait behind this one."""
        self.queued = queued
        if self.is_mounted:
            self.query_one("#permission-help", Static).update(self._help_text())

    def on_mount(self) -> None:
        self.query_one("#rule-input").display = False
        self.query_one("#rule-places").display = False
        self.query_one("#reason-input").display = False
        choices = self.query_one("#choices", OptionList)
        choices.highlighted = 0
        self._fit(self.app.size.width, self.app.size.height)

    def on_resize(self, event: events.Resize) -> None:
        self._fit(event.size.width, event.size.height)

    def _fit(self, width: int, height: int) -> None:
        """Small terminals (down to 40x12): fill the screen, short labels, the preview takes what is left."""
        small = width < SMALL_WIDTH or height < SMALL_HEIGHT
        if small == self.has_class("-small"):
            return
        self.set_class(small, "-small")
        choices = self.query_one("#choices", OptionList)
        for index, (_key, label) in enumerate(self.choices):
            short = SHORT_LABELS[index] if index < len(SHORT_LABELS) else SERVER_CHOICE[2]
            choices.replace_option_prompt_at_index(index, short if small else label)

    def _unseen_preview_lines(self) -> int:
        """Lines of a command the user has not had on screen yet (0 for a diff: its file is in the title)."""
        if self._preview_seen or (self.event.preview or {}).get("kind") == "diff":
            return 0
        preview = self.query_one("#permission-preview", VerticalScroll)
        if preview.scrollable_content_region.height > 0 and preview.scroll_y >= preview.max_scroll_y:
            self._preview_seen = True
            return 0
        return max(1, round(preview.max_scroll_y - preview.scroll_y))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("choose", "deny_now") and not self.armed:
            return False
        return True

    @on(OptionList.OptionSelected, "#choices")
    def _option_selected(self, event: OptionList.OptionSelected) -> None:
        if self.armed and event.option.id:
            self.action_choose(event.option.id)

    def action_choose(self, key: str) -> None:
        """Answer with scope `key`; 3 and 4 first open their input, Enter there confirms.

        A command that does not fit is scrolled a page instead of allowed, until all of it has been shown.
        """
        if key != "deny" and (unseen := self._unseen_preview_lines()):
            self.query_one("#permission-preview", VerticalScroll).scroll_page_down(animate=False)
            self.show_notice(f"The command is cut off ({unseen} more lines): Enter scrolls; read it all first.")
            return
        if key in ("once", "session"):
            self._finish(PermissionReply(True, scope=key))  # type: ignore[arg-type]
            return
        if key == "server":
            if self.server_rule:
                self._finish(PermissionReply(True, scope="always", rule=self.server_rule))
            return
        target = "#rule-input" if key == "always" else "#reason-input"
        other = "#reason-input" if key == "always" else "#rule-input"
        self.query_one(other).display = False
        places = self.query_one("#rule-places", OptionList)
        places.display = key == "always"
        if places.display:
            self._mark_place(places.highlighted or 0)
            self.query_one("#permission-help", Static).update(
                Text("↑↓ where to save · Enter save the rule · Esc deny", style="dim")
            )
        box = self.query_one(target, Input)
        if box.display and box.has_focus:
            self._submit_input(box)
            return
        box.display = True
        box.focus()
        self.query_one("#choices", OptionList).highlighted = 2 if key == "always" else 3

    @on(OptionList.OptionSelected, "#rule-places")
    def _place_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if self.armed:
            self._submit_input(self.query_one("#rule-input", Input))

    def on_key(self, event: events.Key) -> None:
        """Up and Down in the rule field pick the file the rule is saved to."""
        if event.key in ("up", "down") and self.query_one("#rule-input", Input).has_focus:
            places = self.query_one("#rule-places", OptionList)
            step = 1 if event.key == "down" else -1
            self._mark_place(((places.highlighted or 0) + step) % len(self.places))
            event.stop()

    def _mark_place(self, index: int) -> None:
        """Highlight the file the rule will be saved to, with a mark that shows without colour too."""
        places = self.query_one("#rule-places", OptionList)
        for at, (_key, label) in enumerate(self.places):
            places.replace_option_prompt_at_index(at, f"{'▸' if at == index else ' '} {label}")
        places.highlighted = index

    @on(Input.Submitted)
    def _input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self.armed:
            self._submit_input(event.input)

    def _submit_input(self, box: Input) -> None:
        if box.id == "rule-input":
            rule = box.value.strip() or self.event.suggested_rule
            index = self.query_one("#rule-places", OptionList).highlighted or 0
            self._finish(PermissionReply(True, scope="always", rule=rule, destination=self.places[index][0]))
        else:
            self._finish(PermissionReply(False, reason=box.value.strip()))

    def action_deny_now(self) -> None:
        reason = self.query_one("#reason-input", Input).value.strip()
        self._finish(PermissionReply(False, reason=reason))

    def _finish(self, reply: PermissionReply) -> None:
        """Answer, unless the key that asked for it came in a burst."""
        if not self._answered:
            self.answer_when_sure(lambda: self._answer(reply))

    def _answer(self, reply: PermissionReply) -> None:
        if not self._answered:
            self._answered = True
            self.dismiss(reply)

    def show_notice(self, notice: str) -> None:
        if self.is_mounted:
            self.query_one("#permission-help", Static).update(Text(notice, style="bold"))

    def withdraw(self) -> None:
        """Close without an answer (the turn was interrupted and the engine already denied)."""
        if not self._answered:
            self._answered = True
            self.dismiss(None)
