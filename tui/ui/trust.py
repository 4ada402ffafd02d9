"""Settings at start in the app: report problems in settings files, and ask once per folder
whose own settings allow things (workspace trust)."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from tui.ui.threads import call_soon_from_thread

if TYPE_CHECKING:
    from tui.ui.app import AgentApp


def check_trust(app: AgentApp) -> None:
    """Run in a thread worker: read the settings, toast their problems and, when needed, ask with TrustDialog."""
    from tui.config.settings import load_settings, problem_for_display, should_ask_trust, untrusted_allow_rules

    project_dir = app.options.project_dir
    loaded = load_settings(project_dir)
    for problem in app.options.mcp_problems:  # MCP entries that could not be used (tui/mcp/sources.py)
        text = problem_for_display(problem, project_dir)
        call_soon_from_thread(app, app.notify, text, title="MCP", severity="warning", timeout=12, markup=False)
    for problem in loaded.problems:
        text = problem_for_display(problem, project_dir)
        call_soon_from_thread(app, app.notify, text, title="Settings", severity="warning", timeout=12, markup=False)
    from tui.ui.mcp_approval import ask_project_servers, servers_awaiting_trust

    if loaded.trusted:
        ask_project_servers(app)  # new .mcp.json servers: which may start
    servers = servers_awaiting_trust(loaded)
    if not should_ask_trust(loaded) and not servers:
        return
    rules = [r.rule for r in untrusted_allow_rules(loaded)]

    def answered(trusted: bool | None) -> None:
        from tui.config.settings import decline_folder, trust_folder

        try:
            if trusted:
                trust_folder(project_dir)
                app.session.reload_policy()
                what = "its allow rules now count" if rules else "its MCP servers may start"
                app.notify(f"Trusted {project_dir}: {what}.", title="Workspace trust")
                app.run_worker(partial(ask_project_servers, app), thread=True, group="trust", exit_on_error=False)
            else:
                decline_folder(project_dir)
                off = " and ".join(["allow rules"] * bool(rules) + [".mcp.json servers"] * bool(servers))
                app.notify(f"Not trusted: this folder's {off} stay off" + (" (deny and ask rules count)." if rules
                                                                              else "."), title="Workspace trust")
        except (OSError, ValueError) as exc:
            app.notify(f"The answer could not be saved: {exc}", severity="error", title="Workspace trust")

    from tui.ui.screens.trust_dialog import TrustDialog

    dialog = TrustDialog(project_dir, rules, grace_s=app.permission_grace_s, mcp_servers=servers)
    call_soon_from_thread(app, app.push_screen, dialog, answered)
