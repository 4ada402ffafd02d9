"""/plugin: the marketplaces and their plugins, each with its state; install, enable, disable and remove.

`a` adds a marketplace (the field at the bottom: a folder, a git URL or a GitHub owner/repo), `i` installs
the highlighted plugin and turns it on, `e` / `d` turn it on or off, `r` uninstalls it (on a marketplace's
row: removes the marketplace), `u` pulls a git marketplace again. Each change is put in force at once
(tui/agent/plugins_live.py): commands, skills, agents, hooks and MCP servers follow without a restart.
Slow work (a git clone) runs in a thread; the table says what happened, and so does a toast.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import DataTable, Input, Static

from tui.text.sanitize import one_line, visible
from tui.text.wording import plural

from ..commands import slash_command
from ..trust import skipped_note
from ..widgets.dialog_box import DialogBox
from ..widgets.fitted_table import FittedTable
from ..widgets.ordered_keys import OrderedInput

if TYPE_CHECKING:
    from tui.agent.door import Session

STATE_STYLES = {
    "enabled": "green",
    "disabled": "yellow",
    "not installed": "dim",
    "error": "red",
    "waits for trust": "cyan",
    "enabled, not installed": "cyan",
}


@dataclass
class Row:
    """One line of the table: a marketplace, or one plugin of it."""

    market: str
    plugin: str = ""
    state: str = ""
    detail: str = ""
    description: str = ""
    version: str = ""
    #: the loaded plugin's hooks, one line each with its matcher and `if` (`PreToolUse Bash if Bash(git *): cmd`)
    hooks: tuple[str, ...] = ()

    @property
    def plugin_id(self) -> str:
        return f"{self.plugin}@{self.market}"


def plugin_rows(project_dir: Path, session: Session) -> tuple[list[Row], list[str]]:
    """The table's rows (read now, off the UI thread) and the problems to show above it."""
    from tui.config.settings import load_settings
    from tui.plugins import sources
    from tui.plugins.active import effective_choices
    from tui.plugins.marketplaces import views
    from tui.plugins.store import PluginError, read_installed

    loaded = load_settings(project_dir)
    active = getattr(session.options, "plugins", None)
    problems = list(active.notices()) if active is not None else []
    try:
        installed = read_installed()
    except PluginError as exc:
        installed, problems = {}, [*problems, str(exc)]
    choices = effective_choices(loaded)
    rows: list[Row] = []
    for view in views(loaded.marketplaces):
        added = "" if view.added else f"named in {one_line(str(view.named_in))}, added on first install"
        rows.append(
            Row(view.name, state="marketplace", detail=view.problem or added, description=sources.describe(view.source))
        )
        for entry in view.market.plugins if view.market else []:
            plugin_id = f"{entry.name}@{view.name}"
            record, choice = installed.get(plugin_id), choices.get(plugin_id)
            loaded_plugin = active.get(plugin_id) if active is not None else None
            state, detail = _state(plugin_id, record, choice, loaded_plugin, problems, loaded.trusted)
            hooks = (
                tuple(f"{h.event} {h.when}: {h.command}" for h in loaded_plugin.parts.hooks) if loaded_plugin else ()
            )
            version = record.version if record else entry.version
            rows.append(Row(view.name, entry.name, state, detail, entry.description, version, hooks))
    return rows, problems


def _state(
    plugin_id: str, record: Any, choice: Any, plugin: Any, problems: list[str], trusted: bool
) -> tuple[str, str]:
    """(state, detail) of one plugin for the table."""
    mine = [
        p for p in problems if p.startswith((f"Plugin {plugin_id} ", f"Plugin {plugin_id}:", f"Plugin {plugin_id},"))
    ]
    enabled = choice is not None and choice.enabled
    if record is None:
        return (
            ("enabled, not installed", "the folder's settings enable it; /trust installs it")
            if enabled and choice.folder and not trusted
            else ("not installed", mine[0] if mine else "")
        )
    if not enabled:
        return "disabled", ""
    if plugin is None:
        return "error", mine[0] if mine else "not loaded: restart agent-tui"
    if plugin.gated and not trusted:
        return (
            "waits for trust",
            f"{plugin.parts.counts()}; its hooks, agents and servers run once you /trust the folder",
        )
    return "enabled", plugin.parts.counts() + (f" · {mine[0]}" if mine else "")


class PluginScreen(ModalScreen[None]):
    """Marketplaces and plugins, with keys to change them."""

    DEFAULT_CSS = """
    PluginScreen { align: center middle; }
    #plugin-box { width: 95%; height: 90%; border: round $primary; background: $surface; padding: 0 1; }
    #plugin-box > .title { text-style: bold; }
    #plugin-table { height: 1fr; }
    #plugin-detail { height: auto; max-height: 8; border-top: solid $primary-darken-2; }
    #plugin-problems { height: auto; max-height: 6; overflow-y: auto; color: $warning; }
    #plugin-status { height: auto; color: $text-muted; }
    #plugin-add { margin: 0; }
    PluginScreen.-short #plugin-problems { max-height: 2; }
    """

    BINDINGS = [
        Binding("escape", "close", "Close", id="plugin.close"),
        Binding("i", "install", "Install", id="plugin.install"),
        Binding("e", "enable(True)", "Enable", id="plugin.enable"),
        Binding("d", "enable(False)", "Disable", id="plugin.disable"),
        Binding("r", "remove", "Remove", id="plugin.remove"),
        Binding("u", "update", "Update marketplace", id="plugin.update"),
        Binding("a", "add", "Add marketplace", id="plugin.add"),
    ]

    def __init__(self, session: Session, project_dir: Path | None = None) -> None:
        super().__init__()
        self.session = session
        self.project_dir = Path(project_dir or session.options.project_dir)
        self.rows: list[Row] = []
        self.problems: list[str] = []
        #: set while a change runs in its thread (keys wait for it)
        self.busy = False

    def compose(self) -> ComposeResult:
        with DialogBox(id="plugin-box"):
            with Vertical(classes="dialog-head"):
                yield Static("Plugins", classes="title")
                if note := skipped_note(self.app, "plugins"):
                    yield Static(note, id="plugin-untrusted", classes="untrusted-note", markup=False)
                yield Static("", id="plugin-problems")
            yield FittedTable(id="plugin-table", cursor_type="row", classes="dialog-body -fill")
            with Vertical(classes="dialog-answers"):
                with VerticalScroll(id="plugin-detail"):
                    yield Static("", id="plugin-detail-text", markup=False)
                yield Static("Reading the marketplaces…", id="plugin-status", markup=False)
                yield OrderedInput(
                    placeholder="add a marketplace: ./folder, https://…/repo.git, file:///…/x.git or "
                    "owner/repo, then Enter",
                    id="plugin-add",
                    compact=True,
                )
                yield Static(
                    Text(
                        "i install · e enable · d disable · r remove · u update · a add marketplace · "
                        "Up/Down choose · Esc closes",
                        style="dim",
                    )
                )

    def on_mount(self) -> None:
        self.query_one("#plugin-table", DataTable).add_columns("Plugin", "Version", "State", "Details")
        self.query_one("#plugin-table", DataTable).focus()
        self.reload()

    # --- reading ---------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="plugin-read")
    def reload(self, message: str = "") -> None:
        rows, problems = plugin_rows(self.project_dir, self.session)
        self.app.call_from_thread(self._show, rows, problems, message)

    def _show(self, rows: list[Row], problems: list[str], message: str) -> None:
        self.rows, self.problems = rows, problems
        table = self.query_one("#plugin-table", DataTable)
        cursor = table.cursor_row
        table.clear()
        for index, row in enumerate(rows):
            if not row.plugin:
                label = Text("▾ " + one_line(row.market), style="bold")
                table.add_row(
                    label,
                    "",
                    Text("marketplace", style="bold"),
                    Text(one_line(row.detail or row.description)[:100]),
                    key=str(index),
                )
            else:
                table.add_row(
                    Text("  " + one_line(row.plugin)),
                    one_line(row.version),
                    Text(row.state, style=STATE_STYLES.get(row.state, "")),
                    Text(one_line(row.detail)[:100]),
                    key=str(index),
                )
        if rows:
            table.move_cursor(row=min(cursor, len(rows) - 1))
        text = "\n".join(f"⚠ {one_line(p)}" for p in problems)
        self.query_one("#plugin-problems", Static).update(Text(visible(text)))
        markets, on = sum(1 for r in rows if not r.plugin), sum(1 for r in rows if r.state == "enabled")
        status = message or (
            f"{plural(markets, 'marketplace')}, {plural(on, 'plugin')} on"
            if rows
            else "No marketplace yet: type a folder or a git URL below and press Enter (or press a)."
        )
        self.query_one("#plugin-status", Static).update(visible(status))
        self._describe()

    @on(DataTable.RowHighlighted, "#plugin-table")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._describe()

    def selected(self) -> Row | None:
        table = self.query_one("#plugin-table", DataTable)
        row = table.cursor_row
        return self.rows[row] if self.rows and row is not None and 0 <= row < len(self.rows) else None

    def _describe(self) -> None:
        row = self.selected()
        if row is None:
            text = ""
        elif not row.plugin:
            text = f"{row.market}: {row.description}" + (f"\n{row.detail}" if row.detail else "")
        else:
            text = f"{row.plugin_id} {row.version}: {row.description}\n{row.state}" + (
                f": {row.detail}" if row.detail else ""
            )
            text += "".join(f"\nhook {line}" for line in row.hooks)
        self.query_one("#plugin-detail-text", Static).update(visible(text))

    # --- changing --------------------------------------------------------------------------

    def _say(self, message: str) -> None:
        self.query_one("#plugin-status", Static).update(visible(message))

    def _plugin_row(self) -> Row | None:
        row = self.selected()
        if row is None or not row.plugin:
            self._say("Choose a plugin first (Up/Down).")
            return None
        return row

    def action_install(self) -> None:
        if (row := self._plugin_row()) is not None:
            self._change("install", row.plugin_id)

    def action_enable(self, on: bool) -> None:
        if (row := self._plugin_row()) is not None:
            self._change("enable" if on else "disable", row.plugin_id)

    def action_remove(self) -> None:
        row = self.selected()
        if row is None:
            return
        if row.plugin:
            self._change("uninstall", row.plugin_id)
        else:
            self._change("remove-marketplace", row.market)

    def action_update(self) -> None:
        row = self.selected()
        if row is not None:
            self._change("update-marketplace", row.market)

    def action_add(self) -> None:
        self.query_one("#plugin-add", Input).focus()

    @on(Input.Submitted, "#plugin-add")
    def _add_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        source = event.value.strip()
        if source:
            event.input.value = ""
            self.query_one("#plugin-table", DataTable).focus()
            self._change("add-marketplace", source)

    def _change(self, what: str, target: str) -> None:
        if self.busy:
            self._say("Wait: the last change is still running.")
            return
        self.busy = True
        self._say(f"{what.replace('-', ' ').capitalize()} {target}…")
        self._run_change(what, target)

    @work(thread=True, group="plugin-change")
    def _run_change(self, what: str, target: str) -> None:
        from tui.plugins.store import PluginError

        try:
            message = change_plugins(self.session, self.project_dir, what, target)
            notices = apply_now(self.session, self.project_dir)
        except PluginError as exc:
            message, notices = str(exc), []
        self.app.call_from_thread(self._changed, message, notices)

    def _changed(self, message: str, notices: list[str]) -> None:
        self.busy = False
        self.app.notify(one_line(message), title="Plugins", markup=False)
        for notice in notices:
            self.app.notify(one_line(notice), title="Plugins", severity="warning", markup=False, timeout=10)
        self.reload(message)

    def action_close(self) -> None:
        self.dismiss(None)


def change_plugins(session: Session, project_dir: Path, what: str, target: str) -> str:
    """Make one change (in a thread) and return the sentence that says what it did; PluginError when it cannot."""
    from tui.config.settings import load_settings
    from tui.plugins import install as plugins
    from tui.plugins import marketplaces, sources
    from tui.plugins.store import read_installed

    loaded = load_settings(project_dir)
    if what == "install":
        done = plugins.install(target, named=loaded.marketplaces)
        path = plugins.set_enabled(target, True, project_dir, loaded)
        return f"Installed {target} {done.record.version} and turned it on (enabled_plugins in {path})."
    if what in ("enable", "disable"):
        path = plugins.set_enabled(target, what == "enable", project_dir, loaded)
        return f"{what.capitalize()}d {target} (enabled_plugins in {path})."
    if what == "uninstall":
        plugins.uninstall(target)
        return f"Uninstalled {target}."
    if what == "add-marketplace":
        market = marketplaces.add_marketplace(sources.parse_source(target, project_dir))
        return (
            f"Added the marketplace {market.name} with {plural(len(market.plugins), 'plugin')}; choose one and press i."
        )
    if what == "update-marketplace":
        market = marketplaces.update_marketplace(target)
        return f"Updated the marketplace {market.name}."
    gone = [p for p in read_installed() if p.endswith(f"@{target}")]
    marketplaces.remove_marketplace(target)
    for plugin_id in gone:
        plugins.uninstall(plugin_id)
    return f"Removed the marketplace {target}" + (f" and uninstalled {', '.join(gone)}." if gone else ".")


def apply_now(session: Session, project_dir: Path) -> list[str]:
    """Put the plugins as the settings now say in force in the session; the sentences to show."""
    from tui.config.settings import load_settings

    return session.apply_plugins(load_settings(project_dir))


@slash_command("plugin", "Plugins and marketplaces: browse, install, enable, disable, remove")
def _plugin(app: Any, args: str) -> None:
    app.push_screen(PluginScreen(app.session, app.session.options.project_dir))
