"""/mcp: every MCP server (source, transport, status, counts, error), its tools' schemas, and its messages.

`r` reconnects the highlighted server, `e` enables or disables it (remembered for a project server). The
Messages tab lists every JSON-RPC message in order, filterable by server. Everything a
server wrote passes the sanitiser before it is drawn.
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any

from rich.syntax import Syntax
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import DataTable, Select, Static, TabbedContent, TabPane

from tui.text.sanitize import one_line, visible
from tui.text.wording import plural

from ..trust import skipped_note
from ..widgets.dialog_box import DialogBox
from ..widgets.fitted_table import FittedTable

if TYPE_CHECKING:
    from tui.agent.door import Session

STATUS_STYLE = {"connected": "green", "pending": "yellow", "failed": "red", "disabled": "#808080"}
#: messages drawn at most in the Messages tab (the newest)
SHOWN_MESSAGES = 1000


def _summary(message: dict[str, Any]) -> str:
    from tui.mcp.transport import message_summary

    return message_summary(message)


class McpScreen(ModalScreen[None]):
    """The MCP servers of the session."""

    mcp_screen = True  # the event controller refreshes a screen that says this

    DEFAULT_CSS = """
    McpScreen { align: center middle; }
    #mcp-box { width: 95%; height: 90%; border: round $primary; background: $surface; padding: 0 1; }
    #mcp-box > .title { text-style: bold; }
    #mcp-servers, #mcp-tools, #mcp-messages { height: auto; max-height: 45%; }
    #mcp-detail, #mcp-schema, #mcp-message { height: 1fr; border-top: solid $primary-darken-2; }
    #mcp-filter { width: 40; }
    #mcp-tabs { height: 1fr; }
    #mcp-tabs TabPane { padding: 0; }
    """

    BINDINGS = [
        Binding("escape,q", "close", "Close", id="mcp.close"),
        Binding("r", "reconnect", "Reconnect", id="mcp.reconnect"),
        Binding("e", "toggle_enabled", "Enable/disable", id="mcp.toggle"),
        Binding("s", "tab('mcp-servers-tab')", "Servers", id="mcp.servers"),
        Binding("t", "tab('mcp-tools-tab')", "Tools", id="mcp.tools"),
        Binding("m", "tab('mcp-messages-tab')", "Messages", id="mcp.messages"),
    ]

    def __init__(self, session: Session | None, tab: str = "mcp-servers-tab") -> None:
        super().__init__()
        self.runtime: Any = getattr(session, "mcp", None)  # McpRuntime, or None without MCP
        self.initial_tab = tab
        self.selected: str | None = None
        self.filter: str | None = None
        self._shown_messages = 0
        self._ready = False

    @property
    def states(self) -> dict[str, Any]:
        return self.runtime.manager.states if self.runtime is not None else {}

    def compose(self) -> ComposeResult:
        with DialogBox(id="mcp-box"):
            with Vertical(classes="dialog-head"):
                yield Static("MCP servers", classes="title")
                note = skipped_note(self.app, "mcp")
                if note:
                    yield Static(note, id="mcp-untrusted", classes="untrusted-note", markup=False)
                if self.runtime is None and not note:
                    yield Static(
                        "No MCP server is configured. Add one with `agent-tui mcp add NAME -- COMMAND`, "
                        "a project .mcp.json, [mcp_servers.NAME] in the settings, or --mcp-config.",
                        id="mcp-empty",
                    )
            with TabbedContent(id="mcp-tabs", classes="dialog-body -fill"):
                with TabPane("Servers", id="mcp-servers-tab"):
                    yield DataTable(id="mcp-servers", cursor_type="row")
                    with VerticalScroll(id="mcp-detail"):
                        yield Static("", id="mcp-detail-text", markup=False)
                with TabPane("Tools", id="mcp-tools-tab"):
                    yield FittedTable(id="mcp-tools", cursor_type="row")
                    with VerticalScroll(id="mcp-schema"):
                        yield Static("", id="mcp-schema-text")
                with TabPane("Messages", id="mcp-messages-tab"):
                    yield Select([], prompt="every server", id="mcp-filter", allow_blank=True)
                    yield FittedTable(id="mcp-messages", cursor_type="row")
                    with VerticalScroll(id="mcp-message"):
                        yield Static("", id="mcp-message-text")
            yield Static(
                Text(
                    "s servers · t tools · m messages · r reconnect · e enable/disable · Up/Down choose · Esc closes",
                    style="dim",
                ),
                classes="dialog-answers",
            )

    def on_mount(self) -> None:
        self.call_after_refresh(self._fill)  # the tab panes' children mount after the screen

    def _fill(self) -> None:
        self._ready = True
        self.query_one("#mcp-servers", DataTable).add_columns(
            "Server", "Source", "Transport", "Status", "Tools", "Resources", "Prompts", "Error"
        )
        self.query_one("#mcp-tools", DataTable).add_columns("Tool", "Server", "Description")
        self.query_one("#mcp-messages", DataTable).add_columns("Time", "Server", "", "Message")
        self.query_one("#mcp-filter", Select).set_options([(one_line(name), name) for name in self.states])
        self.refresh_servers()
        self.action_tab(self.initial_tab)

    # --- servers -------------------------------------------------------------------------

    def refresh_servers(self) -> None:
        """Redraw the server and tool tables from the manager's state (called on McpServerChanged)."""
        if not self._ready:
            return
        table = self.query_one("#mcp-servers", DataTable)
        row = table.cursor_row
        table.clear()
        for name, state in self.states.items():
            config = state.config
            table.add_row(
                Text(one_line(name), style="bold"),
                config.source,
                config.transport,
                Text(state.status, style=STATUS_STYLE.get(state.status, "")),
                str(len(state.tools)),
                str(len(state.resources)),
                str(len(state.prompts)),
                Text(one_line(state.error)[:60], style="red"),
                key=name,
            )
        if self.states:
            table.move_cursor(row=min(row, len(self.states) - 1))
            self.selected = self.selected if self.selected in self.states else next(iter(self.states))
            self._show_server(self.selected)
        self._refresh_tools()
        self.refresh_messages()

    def _show_server(self, name: str) -> None:
        state = self.states[name]
        config = state.config
        where = f"{config.command} {' '.join(config.args)}" if config.transport == "stdio" else config.url
        lines = [
            f"{name}: {state.status} · {config.transport} · {where}",
            f"configured in {config.source_path or config.source} ({config.source})",
        ]
        if state.server_info:
            lines.append(f"server: {state.server_info}")
        if state.error:
            lines.append(f"error: {state.error}")
        lines += [f"warning: {w}" for w in state.warnings]
        if state.stderr_tail:
            lines += ["", "stderr (last lines):", state.stderr_tail]
        if config.transport == "stdio":
            lines.append(f"log: {state.log_path}")
        if state.tools:
            lines += ["", plural(len(state.tools), "tool") + ":"]
            lines += [f"  {t.get('name')}: {one_line(str(t.get('description') or ''))[:100]}" for t in state.tools]
        self.query_one("#mcp-detail-text", Static).update(Text(visible("\n".join(lines))))

    @on(DataTable.RowHighlighted, "#mcp-servers")
    def _server_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.row_key.value is not None and event.row_key.value in self.states:
            self.selected = event.row_key.value
            self._show_server(self.selected)

    def action_reconnect(self) -> None:
        if self.runtime is not None and self.selected is not None:
            self.notify(f"Reconnecting {self.selected}…")
            self._in_thread(lambda: self.runtime.manager.reconnect(self.selected))

    def action_toggle_enabled(self) -> None:
        if self.runtime is None or self.selected is None:
            return
        name = self.selected
        enable = self.states[name].status == "disabled"
        if self.states[name].config.source != "project":  # the contract keeps only .mcp.json answers
            self.notify(f"{'Enabling' if enable else 'Disabling'} {name} for this session.")
        self._in_thread(lambda: self._toggle(name, enable))

    def _toggle(self, name: str, enable: bool) -> None:
        """Enable or disable `name`; a project server's answer is kept in local settings, as Claude Code does."""
        self.runtime.manager.set_enabled(name, enable)
        if self.states[name].config.source == "project":
            from tui.mcp.approval import remember_enabled

            try:
                said = remember_enabled(self.runtime.manager.project_dir, name, enable)
            except (OSError, ValueError) as exc:
                said = f"{name} is {'enabled' if enable else 'disabled'} for this session only: {exc}"
            self.app.call_from_thread(self.notify, one_line(said), markup=False)

    @work(thread=True, group="mcp-control", exit_on_error=False)
    def _in_thread(self, action: Any) -> None:
        action()  # the server's McpServerChanged events redraw the table

    # --- tools ---------------------------------------------------------------------------

    def _tool_specs(self) -> list[tuple[str, str, dict[str, Any]]]:
        from tui.mcp.names import api_name

        return [(api_name(n, str(t.get("name", ""))), n, t) for n, s in self.states.items() for t in s.tools]

    def _refresh_tools(self) -> None:
        table = self.query_one("#mcp-tools", DataTable)
        table.clear()
        for index, (name, server, spec) in enumerate(self._tool_specs()):
            table.add_row(
                Text(one_line(name)),
                one_line(server),
                Text(one_line(str(spec.get("description") or ""))[:80]),
                key=str(index),
            )

    @on(DataTable.RowHighlighted, "#mcp-tools")
    def _tool_highlighted(self, event: DataTable.RowHighlighted) -> None:
        specs = self._tool_specs()
        if event.row_key.value is not None and int(event.row_key.value) < len(specs):
            _, _, spec = specs[int(event.row_key.value)]
            text = visible(json.dumps(spec, indent=2, ensure_ascii=False))
            self.query_one("#mcp-schema-text", Static).update(Syntax(text, "json", word_wrap=True))

    # --- messages ------------------------------------------------------------------------

    def _messages(self) -> list[tuple[float, str, str, dict[str, Any]]]:
        if self.runtime is None:
            return []
        return [m for m in list(self.runtime.messages) if self.filter in (None, m[1])][-SHOWN_MESSAGES:]

    def refresh_messages(self) -> None:
        """Redraw the message list (called as McpMessage events arrive)."""
        if not self._ready:
            return
        messages = self._messages()
        table = self.query_one("#mcp-messages", DataTable)
        if len(messages) == self._shown_messages and table.row_count == len(messages):
            return
        table.clear()
        for index, (ts, server, direction, message) in enumerate(messages):
            arrow = "→" if direction == "send" else "←"
            table.add_row(
                time.strftime("%H:%M:%S", time.localtime(ts)),
                one_line(server),
                arrow,
                Text(one_line(_summary(message))),
                key=str(index),
            )
        self._shown_messages = len(messages)

    @on(Select.Changed, "#mcp-filter")
    def _filter_changed(self, event: Select.Changed) -> None:
        self.filter = None if event.value is Select.BLANK else str(event.value)
        self._shown_messages = -1
        self.refresh_messages()

    @on(DataTable.RowHighlighted, "#mcp-messages")
    def _message_highlighted(self, event: DataTable.RowHighlighted) -> None:
        messages = self._messages()
        if event.row_key.value is not None and int(event.row_key.value) < len(messages):
            message = messages[int(event.row_key.value)][3]
            text = visible(json.dumps(message, indent=2, ensure_ascii=False)[:200_000])
            self.query_one("#mcp-message-text", Static).update(Syntax(text, "json", word_wrap=True))

    def action_tab(self, tab: str) -> None:
        self.query_one("#mcp-tabs", TabbedContent).active = tab
        table = {"mcp-servers-tab": "#mcp-servers", "mcp-tools-tab": "#mcp-tools"}.get(tab, "#mcp-messages")
        self.query_one(table, DataTable).focus()

    def action_close(self) -> None:
        self.dismiss(None)
