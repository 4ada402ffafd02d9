"""/permissions: every rule in force, the file it came from, whether it counts; add and remove.

Rules are added to the project's local settings (`.agent-tui/settings.local.toml`); allow
rules are also recorded in the user settings so they count in an untrusted folder.
All reading and writing goes through `tui.config`; this screen only shows and asks.
"""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, DataTable, Input, Select, Static

from tui.config.permissions import PermissionPolicy
from tui.config.rule_edits import add_rule, remove_rule
from tui.config.rules import RULE_KINDS, RuleKind, RuleSource
from tui.config.settings import LoadedSettings, load_settings
from tui.text.sanitize import one_line, visible

from ..trust import skipped_note
from ..widgets.dialog_box import DialogBox
from ..widgets.fitted_table import FittedTable
from ..widgets.ordered_keys import OrderedInput

KIND_STYLES = {"deny": "bold red", "ask": "bold yellow", "allow": "bold green"}


class PermissionsScreen(ModalScreen[None]):
    """The effective permission rules in a table, with a form to add one and a key to remove one."""

    DEFAULT_CSS = """
    PermissionsScreen { align: center middle; }
    #permissions-box {
        width: 90%; height: 85%; border: round $primary; background: $surface; padding: 0 1;
    }
    #permissions-box > .title { text-style: bold; }
    #permissions-rules { height: 1fr; }
    #permissions-form { height: auto; margin-top: 1; }
    #permissions-form Input { width: 1fr; }
    #permissions-form Select { width: 14; }
    #permissions-message { height: auto; color: $text-muted; }
    #permissions-problems { height: auto; max-height: 6; overflow-y: auto; color: $warning; }
    PermissionsScreen.-short #permissions-form { margin-top: 0; }
    PermissionsScreen.-short #permissions-problems { max-height: 2; }
    PermissionsScreen.-cramped #permissions-form Button { min-width: 0; }
    """

    BINDINGS = [
        Binding("escape", "close", "Close", id="close_permissions"),
        Binding("delete,d", "remove_selected", "Remove rule", id="remove_permission_rule"),
    ]

    def __init__(
        self, policy: PermissionPolicy, loaded_settings: LoadedSettings | None = None, project_dir: Path | None = None
    ) -> None:
        super().__init__()
        self.policy = policy
        self.project_dir = project_dir or policy.project_dir
        # read again when not handed over: cheap, and shows the trust state and problems
        self.loaded_settings = loaded_settings if loaded_settings is not None else load_settings(self.project_dir)
        self._entries: list[RuleSource] = []

    def compose(self) -> ComposeResult:
        with DialogBox(id="permissions-box"):
            with Vertical(classes="dialog-head"):
                yield Static("Permissions", classes="title")
                yield Static(self._status_text(), id="permissions-status")
                if note := skipped_note(self.app, "allow"):
                    yield Static(note, id="permissions-untrusted", classes="untrusted-note", markup=False)
            yield FittedTable(
                id="permissions-rules", fill=0, cursor_type="row", zebra_stripes=True, classes="dialog-body -fill"
            )
            with Vertical(classes="dialog-answers"):
                with Horizontal(id="permissions-form"):
                    yield OrderedInput(
                        placeholder="New rule, e.g. Bash(npm run test *) or Edit(/src/**)", id="permissions-new-rule"
                    )
                    yield Select([(k, k) for k in RULE_KINDS], value="allow", allow_blank=False, id="permissions-kind")
                    yield Button("Add", id="permissions-add", variant="primary")
                yield Static("", id="permissions-message")
                yield Static(self._problems_text(), id="permissions-problems")
                yield Static(Text("Enter adds · d / Delete removes the selected rule · Esc closes", style="dim"))

    def on_mount(self) -> None:
        table = self.query_one("#permissions-rules", DataTable)
        table.add_columns("Rule", "Kind", "Source", "Counts")
        self.refresh_rules()
        table.focus()

    def _status_text(self) -> Text:
        trusted = self.loaded_settings.trusted if self.loaded_settings else False
        text = Text()
        text.append("Mode ", style="dim")
        text.append(one_line(self.policy.mode), style="bold")
        text.append("  ·  folder ", style="dim")
        text.append(one_line(str(self.project_dir)))
        text.append("  ·  trusted: ", style="dim")
        text.append(
            "yes" if trusted else "no (its own allow rules do not count; /trust makes them count)",
            style="bold" if trusted else "yellow",
        )
        return text

    def _problems_text(self) -> Text:
        problems = [*(self.loaded_settings.problems if self.loaded_settings else []), *self.policy.problems]
        return Text("\n".join(f"⚠ {one_line(str(p))}" for p in problems))

    def refresh_rules(self) -> None:
        """Rebuild the table from the policy: deny first, then ask, then allow (the order they apply)."""
        table = self.query_one("#permissions-rules", DataTable)
        table.clear()
        order = {"deny": 0, "ask": 1, "allow": 2}
        self._entries = sorted(self.policy.effective_rules(), key=lambda r: order[r.kind])
        for index, entry in enumerate(self._entries):
            table.add_row(
                Text(one_line(entry.rule)),
                Text(entry.kind, style=KIND_STYLES[entry.kind]),
                Text(one_line(self._source_label(entry.source))),
                "yes" if entry.counts else Text("no (untrusted folder)", style="dim"),
                key=str(index),
            )

    def _source_label(self, source: str) -> str:
        try:
            return str(Path(source).relative_to(self.project_dir))
        except ValueError:
            return source

    def _say(self, message: str) -> None:
        self.query_one("#permissions-message", Static).update(Text(visible(message)))

    @on(Input.Submitted, "#permissions-new-rule")
    @on(Button.Pressed, "#permissions-add")
    def add_from_form(self) -> None:
        field = self.query_one("#permissions-new-rule", Input)
        rule = field.value.strip()
        if not rule:
            self._say("Type a rule first, e.g. Bash(npm run test *).")
            return
        kind: RuleKind = self.query_one("#permissions-kind", Select).value  # type: ignore[assignment]
        try:
            path = add_rule(self.policy, kind, rule)
        except ValueError as exc:
            self._say(str(exc))
            return
        field.value = ""
        self._say(f"Added `{rule}` ({kind}) to {path}." if path else f"Added `{rule}` ({kind}) for this session only.")
        self.refresh_rules()

    def action_remove_selected(self) -> None:
        table = self.query_one("#permissions-rules", DataTable)
        if not self._entries or table.cursor_row is None or table.cursor_row >= len(self._entries):
            self._say("No rule selected.")
            return
        self._say(remove_rule(self.policy, self._entries[table.cursor_row]))
        self.refresh_rules()

    def action_close(self) -> None:
        self.dismiss(None)
