"""/hooks: every hook with the file it came from; turn one off for this run; review changed settings files.

Hooks are read once at start. When a settings file changes during the run, its new hooks show
here as pending and apply only when the user presses `a` (as Claude Code asks for a review in
/hooks), never silently.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from tui.config.settings import load_settings
from tui.text.sanitize import one_line, visible

from ..trust import skipped_note
from ..widgets.dialog_box import DialogBox
from ..widgets.fitted_table import FittedTable

if TYPE_CHECKING:
    from tui.agent.door import Session

COMMAND_WIDTH = 40
STATE_STYLES = {
    "on": "green",
    "off for this run": "yellow",
    "folder not trusted": "dim",
    "new: press a": "cyan",
    "removed: press a": "red",
}


def _short(text: str, limit: int = COMMAND_WIDTH) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def pending_changes(active: list[Any], fresh: list[Any]) -> tuple[list[Any], list[Any]]:
    """(added, removed) hooks between those in force and those the files hold now."""
    now = {(h.key, h.source) for h in fresh}
    before = {(h.key, h.source) for h in active}
    return [h for h in fresh if (h.key, h.source) not in before], [h for h in active if (h.key, h.source) not in now]


class HooksScreen(ModalScreen[None]):
    """The hooks in force, what changed in the files since the start, and a switch per hook for this run."""

    DEFAULT_CSS = """
    HooksScreen { align: center middle; }
    #hooks-box { width: 92%; height: 85%; border: round $primary; background: $surface; padding: 0 1; }
    #hooks-box > .title { text-style: bold; }
    #hooks-table { height: 1fr; }
    #hooks-status, #hooks-message { height: auto; }
    #hooks-problems { height: auto; max-height: 6; overflow-y: auto; color: $warning; }
    HooksScreen.-short #hooks-problems { max-height: 2; }
    """

    BINDINGS = [
        Binding("escape", "close", "Close", id="close_hooks"),
        Binding("space,enter,d", "toggle_selected", "On/off for this run", id="toggle_hook"),
        Binding("a", "apply_changes", "Apply changed files", id="apply_hook_changes"),
    ]

    def __init__(self, session: Session, project_dir: Path | None = None) -> None:
        super().__init__()
        self.session = session
        self.project_dir = Path(project_dir or session.options.project_dir)
        self.loaded = load_settings(self.project_dir)
        self._rows: list[tuple[Any, str]] = []

    @property
    def fresh_hooks(self) -> list[Any]:
        """The hooks the settings files hold now (none when `disableAllHooks` is set), and the plugins' (/plugin's to change)."""
        plugin_hooks = [h for h in self.config.hooks if h.plugin] if self.config is not None else []
        return [] if self.loaded.hooks_disabled_by else [*self.loaded.hooks, *plugin_hooks]

    @property
    def config(self) -> Any:
        return self.session.options.hooks

    def compose(self) -> ComposeResult:
        with DialogBox(id="hooks-box"):
            with Vertical(classes="dialog-head"):
                yield Static("Hooks", classes="title")
                yield Static("", id="hooks-status")
                if note := skipped_note(self.app, "hooks"):
                    yield Static(note, id="hooks-untrusted", classes="untrusted-note", markup=False)
            yield FittedTable(
                id="hooks-table", fill=2, cursor_type="row", zebra_stripes=True, classes="dialog-body -fill"
            )
            with Vertical(classes="dialog-answers"):
                yield Static("", id="hooks-message")
                yield Static(self._problems_text(), id="hooks-problems")
                yield Static(
                    Text(
                        "Space/Enter turns the selected hook off or on for this run · a applies changed "
                        "settings files · Esc closes",
                        style="dim",
                    )
                )

    def on_mount(self) -> None:
        self.query_one("#hooks-table", DataTable).add_columns("Event", "Matcher", "Command", "Source", "State")
        self.refresh_rows()
        self.query_one("#hooks-table", DataTable).focus()

    def _problems_text(self) -> Text:
        problems = [p for p in self.loaded.problems if "hook" in p]
        return Text("\n".join(f"⚠ {one_line(p)}" for p in problems))

    def refresh_rows(self) -> None:
        config = self.config
        active = list(config.hooks) if config is not None else []
        trusted = config.trusted if config is not None else self.loaded.trusted
        added, removed = pending_changes(active, self.fresh_hooks)
        self._rows = []
        for spec in active:
            if spec in removed:
                state = "removed: press a"
            elif config is not None and spec.key in config.disabled:
                state = "off for this run"
            elif spec.project and not trusted:
                state = "folder not trusted"
            else:
                state = "on"
            self._rows.append((spec, state))
        self._rows += [(spec, "new: press a") for spec in added]
        table = self.query_one("#hooks-table", DataTable)
        table.clear()
        for index, (spec, state) in enumerate(self._rows):
            table.add_row(
                spec.event,
                Text(one_line(spec.when)),
                Text(_short(one_line(spec.command))),
                Text(one_line(f"plugin {spec.plugin}" if spec.plugin else self._source_label(spec.source))),
                Text(state, style=STATE_STYLES[state]),
                key=str(index),
            )
        running = sum(state == "on" for _, state in self._rows)
        status = Text(f"{running} of {len(active)} hook{'s' if len(active) != 1 else ''} on")
        status.append(
            f" · folder trusted: {'yes' if trusted else 'no (its own hooks do not run; /trust loads them)'}",
            style="dim",
        )
        if self.loaded.hooks_disabled_by:
            status.append(
                f" · disableAllHooks is set in {self._source_label(self.loaded.hooks_disabled_by)}", style="bold yellow"
            )
        if added or removed:
            status.append(
                f" · the settings files changed since the start: {len(added)} new, {len(removed)} removed; "
                "press a to apply",
                style="bold cyan",
            )
        self.query_one("#hooks-status", Static).update(status)

    def _source_label(self, source: Path) -> str:
        try:
            return str(Path(source).relative_to(self.project_dir))
        except ValueError:
            return str(source).replace(str(Path.home()), "~", 1)

    def _say(self, message: str) -> None:
        self.query_one("#hooks-message", Static).update(Text(visible(message)))

    def action_toggle_selected(self) -> None:
        table = self.query_one("#hooks-table", DataTable)
        row = table.cursor_row
        if not self._rows or row is None or row >= len(self._rows) or self.config is None:
            self._say("No hook selected.")
            return
        spec, state = self._rows[row]
        if state.endswith("press a"):
            self._say("Apply the changed settings files first (a).")
            return
        disabled = self.config.disabled
        if spec.key in disabled:
            disabled.discard(spec.key)
            self._say(f"{spec.event} hook `{spec.command}` is on again.")
        else:
            disabled.add(spec.key)
            self._say(f"{spec.event} hook `{spec.command}` is off until agent-tui quits.")
        self.refresh_rows()
        table.move_cursor(row=row)

    def action_apply_changes(self) -> None:

        self.loaded = load_settings(self.project_dir)
        fresh = self.fresh_hooks
        added, removed = pending_changes(list(self.config.hooks) if self.config else [], fresh)
        if not added and not removed:
            self._say("The settings files hold the hooks in force; nothing to apply.")
            return
        self.session.apply_hooks(list(fresh), self.loaded.trusted)
        self._say(f"Applied: {len(added)} new, {len(removed)} removed.")
        self.query_one("#hooks-problems", Static).update(self._problems_text())
        self.refresh_rows()

    def action_close(self) -> None:
        self.dismiss(None)
