"""Workspace trust in the app: the question at start, `/trust` both ways, and what changes at once.

At start (in a thread worker) the settings', plugins' and MCP entries' problems are kept for /doctor and
toasted once per file content (tui/config/reported_problems.py) and, in a folder that is not trusted
and brings anything trust switches on (tui/trust/inventory.py), TrustDialog asks once. `/trust` shows
the same list in either direction. An answer takes effect without a restart: the allow rules and hooks
count (or stop), the folder's agents join the Agent tool, its `!` lines may run, its status line starts,
and its MCP servers are offered (or stopped).
"""

from __future__ import annotations

import os
from functools import partial
from typing import TYPE_CHECKING, Any, cast

from tui.text.sanitize import one_line

from .commands import slash_command
from .threads import call_soon_from_thread

if TYPE_CHECKING:
    from textual.app import App

    from tui.agent.door import Session
    from tui.config.settings import LoadedSettings
    from tui.trust.inventory import FolderInventory
    from tui.ui.app import AgentApp

TITLE = "Workspace trust"
#: the words of a settings problem about a value that waits for trust (tui/config/settings.py)
TRUST_PROBLEM = "until you trust"


def check_trust(app: AgentApp) -> None:
    """Run in a thread worker: read the settings, toast their problems and, when needed, ask with TrustDialog."""
    from tui.config.settings import load_settings, problem_for_display
    from tui.trust.inventory import folder_inventory

    project_dir = app.options.project_dir
    loaded = load_settings(project_dir)
    found: list[tuple[str, str]] = []
    for problem in app.options.mcp_problems:  # MCP entries that could not be used (tui/mcp/sources.py)
        found.append(("MCP", problem_for_display(problem, project_dir)))
    plugins = getattr(app.options, "plugins", None)  # tui.plugins.active.ActivePlugins, when settings name any
    found += [("Plugins", one_line(notice)) for notice in (plugins.notices() if plugins is not None else ())]
    inventory = folder_inventory(project_dir, loaded)
    app.trust_inventory = inventory
    asking = not loaded.trusted and bool(inventory) and not _declined(loaded)
    for problem in loaded.problems:
        if asking and TRUST_PROBLEM in problem:
            continue  # the question names it (statusLine, apiKeyHelper, a permissive mode)
        found.append(("Settings", problem_for_display(problem, project_dir)))
    report_start_problems(app, found)
    if loaded.trusted:
        from tui.ui.external_imports import ask_external_imports
        from tui.ui.mcp_approval import ask_project_servers

        ask_project_servers(app)  # new .mcp.json servers: which may start
        ask_external_imports(app)  # memory imports from outside the project: may they load
    elif asking:
        call_soon_from_thread(app, _ask, app, inventory)


def report_start_problems(app: AgentApp, found: list[tuple[str, str]]) -> None:
    """Keep every problem for /doctor; toast only those not toasted before for the same file content."""
    from tui.config.reported_problems import ReportedProblems

    app.start_problems = found
    fresh = set(ReportedProblems().fresh([text for _, text in found]))
    for title, text in found:
        if text in fresh:
            call_soon_from_thread(app, app.notify, text, title=title, severity="warning", timeout=12, markup=False)


def _declined(loaded: LoadedSettings) -> bool:
    here = os.path.realpath(loaded.project_dir)
    return here in {os.path.realpath(os.path.expanduser(f)) for f in loaded.settings.declined_folders}


def _ask(app: AgentApp, inventory: FolderInventory) -> None:
    from tui.ui.screens.trust_dialog import TrustDialog

    dialog = TrustDialog(inventory, grace_s=app.permission_grace_s, untrust=inventory.trusted)
    app.push_screen(dialog, partial(_answered, app, inventory))


def open_trust_dialog(app: AgentApp) -> None:
    """`/trust`: read what the folder brings now (in a thread worker), then ask to trust it or to stop."""
    from tui.trust.inventory import folder_inventory

    inventory = folder_inventory(app.options.project_dir)
    app.trust_inventory = inventory
    call_soon_from_thread(app, _ask, app, inventory)


@slash_command("trust", "Trust this folder, or stop trusting it: its hooks, agents, MCP servers, allow rules …")
def _trust_command(app: AgentApp, args: str) -> None:
    app.run_worker(partial(open_trust_dialog, app), thread=True, group="trust", exit_on_error=False)


def _answered(app: AgentApp, inventory: FolderInventory, change: bool | None) -> None:
    from tui.config.rule_files import SettingsWriteError
    from tui.trust.folder import decline_folder, trust_folder, untrust_folder

    project_dir = app.options.project_dir
    trusting = not inventory.trusted
    try:
        if change and trusting:
            trust_folder(project_dir)
        elif change:
            untrust_folder(project_dir)
        elif trusting:
            decline_folder(project_dir)
    except (OSError, SettingsWriteError) as exc:
        app.notify(f"The answer could not be saved: {exc}", severity="error", title=TITLE)
        return
    if not change:
        if trusting and inventory:
            app.notify(f"Not trusted: this folder's {inventory.summary()} stay off. /trust loads them.", title=TITLE)
        return
    apply_trust(app, trusting)
    what = (
        f": its {inventory.summary()} {'are' if inventory.count() != 1 else 'is'} now {'on' if trusting else 'off'}"
        if inventory
        else ""
    )
    if trusting:
        app.notify(f"Trusted {project_dir}{what}.", title=TITLE)
    else:
        app.notify(f"Stopped trusting {project_dir}{what} (deny and ask rules still count).", title=TITLE)


def apply_trust(app: AgentApp, trusted: bool) -> None:
    """Make the session follow the folder's trust now: rules and hooks, agents, status line, MCP servers."""
    session = app.session
    session.reload_policy()  # allow rules, a permissive mode, hooks; `!` lines and allowed-tools read it
    session.reload_memory()  # an untrusted folder's memory imports nothing from outside; trusted, it may ask
    read_agents = session.reload_agents()
    if (
        read_agents is not None
    ):  # read again in a thread: a file that cannot be used is named at once (a toast per file)
        app.run_worker(read_agents, thread=True, group="trust", exit_on_error=False)
    _restart_status_line(app)
    app.run_worker(partial(_apply_plugins, app), thread=True, group="trust", exit_on_error=False)
    if trusted:
        from tui.ui.mcp_approval import ask_project_servers

        app.run_worker(partial(ask_project_servers, app), thread=True, group="trust", exit_on_error=False)
        from tui.ui.external_imports import ask_external_imports

        app.run_worker(partial(ask_external_imports, app), thread=True, group="trust", exit_on_error=False)
        if session.hooks is not None and session.turn_count == 0:  # trusted before the first prompt: as at start
            app.run_worker(partial(_start_project_hooks, session), thread=True, group="trust", exit_on_error=False)
    else:
        _stop_project_servers(session)
    app.run_worker(partial(_refresh_inventory, app), thread=True, group="trust", exit_on_error=False)


def _apply_plugins(app: AgentApp) -> None:
    """The plugins the folder's settings enable: installed and started once trusted, their code stopped when not."""
    from tui.config.settings import load_settings

    loaded = load_settings(app.options.project_dir)
    if not loaded.plugins_seen and app.session.options.plugins is None:
        return  # tui.plugins stays unimported
    for sentence in app.session.apply_plugins(loaded):
        call_soon_from_thread(app, app.notify, one_line(sentence), title="Plugins", timeout=10, markup=False)


def _start_project_hooks(session: Session) -> None:
    """The folder's SessionStart hooks, which the start skipped; what they add goes with the first prompt."""
    session.add_hook_context(session.hooks.session_start_after_trust())


def _refresh_inventory(app: AgentApp) -> None:
    from tui.trust.inventory import folder_inventory

    app.trust_inventory = folder_inventory(app.options.project_dir)


def _restart_status_line(app: AgentApp) -> None:
    from tui.config.settings import load_settings

    old = getattr(app, "status_command", None)
    command = load_settings(app.options.project_dir).settings.status_line
    if old is not None and old.command == command:
        return
    if old is not None:
        old.timer.stop()
        app.status.custom = ""
        app.status_command = None  # type: ignore[attr-defined]
    if command:
        from . import status_command

        status_command.start(app, command)


def _stop_project_servers(session: Session) -> None:
    """End the sessions of the folder's own MCP servers (in a thread: a server may take a moment to stop)."""
    runtime = getattr(session, "mcp", None)
    if runtime is None:
        return
    names = [
        name
        for name, state in runtime.manager.states.items()
        if state.config.source == "project" and state.status != "disabled"
    ]
    import threading

    for name in names:
        threading.Thread(
            target=runtime.manager.set_enabled, args=(name, False), name=f"mcp-stop-{name}", daemon=True
        ).start()


def current_inventory(app: AgentApp) -> FolderInventory:
    """What the folder brings, as read at start or at the last /trust (read now if not yet)."""
    inventory = getattr(app, "trust_inventory", None)
    if inventory is None:
        from tui.trust.inventory import folder_inventory

        inventory = app.trust_inventory = folder_inventory(app.options.project_dir)
    return inventory


def skipped_note(app: App[Any], key: str) -> str | None:
    """For a screen: what of one kind the untrusted folder's files hold and `/trust` would load (None when nothing)."""
    from tui.trust.notice import untrusted_note

    if getattr(app, "options", None) is None:
        return None  # a screen shown outside agent-tui's app (a test harness)
    note = untrusted_note(current_inventory(cast("AgentApp", app)), key)
    return one_line(note) if note else None
