"""The app's side of project MCP servers: ask once which new `.mcp.json` servers may start.

Runs on the trust worker thread after the folder's trust is known. Nothing here imports
`tui.mcp` unless the folder has a `.mcp.json`, so a folder without one costs nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from tui.ui.threads import call_soon_from_thread

if TYPE_CHECKING:
    from tui.ui.app import AgentApp

TITLE = "MCP servers"


def project_server_names(project_dir: Path) -> list[str]:
    """The server names of the folder's `.mcp.json` ([] when it has none or cannot be read)."""
    path = project_dir / ".mcp.json"
    if not path.is_file():
        return []
    from tui.config.bounded_read import load_json_file

    try:
        servers = load_json_file(path).get("mcpServers")
    except (OSError, ValueError, AttributeError):
        return []  # the loader reports a broken file with its own sentence
    return [str(name) for name in servers] if isinstance(servers, dict) else []


def ask_project_servers(app: AgentApp) -> None:
    """In a trusted folder: start the enabled project servers not running yet, then ask about new ones."""
    project_dir = app.options.project_dir
    if not project_server_names(project_dir):
        return
    from tui.mcp.approval import project_servers_split
    from tui.mcp.status import describe

    new, enabled, disabled = project_servers_split(project_dir)
    if enabled or disabled:  # enabled before, or the folder was trusted just now; disabled ones listed in /mcp
        call_soon_from_thread(app, app.session.start_mcp_servers, enabled, disabled)
    if not new:
        return

    def answered(choice: tuple[list[str], list[str]] | None) -> None:
        from tui.mcp.approval import record_choices

        if choice is None:
            app.notify("No project MCP server started; agent-tui asks again next time.", title=TITLE)
            return
        on, off = choice
        try:
            record_choices(project_dir, on, off)
        except (OSError, ValueError) as exc:
            app.notify(f"The answer could not be saved: {exc}", severity="error", title=TITLE, markup=False)
        started = app.session.start_mcp_servers([s for s in new if s.name in on])
        text = f"Starting {', '.join(started)}." if started else "No project MCP server will start."
        app.notify(text, title=TITLE, markup=False)

    from tui.ui.screens.mcp_approval_dialog import McpApprovalDialog

    dialog = McpApprovalDialog([(s.name, describe(s)) for s in new], grace_s=app.permission_grace_s)
    call_soon_from_thread(app, app.push_screen, dialog, answered)
