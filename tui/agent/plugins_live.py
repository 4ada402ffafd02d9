"""Plugins changed while the session runs (/plugin, trusting the folder): its commands, agents, hooks and MCP
servers follow without a restart.

Commands and skills are read again at once (the Skill tool's listing too, from the next request); the Agent
tool reads its types again; the plugins' hooks replace the old ones; new MCP servers start in the background
and those of a plugin turned off stop. SessionStart hooks of a plugin turned on now run from the next session.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui.text.wording import plural

if TYPE_CHECKING:
    from .session import AgentSession


def apply_plugins(session: AgentSession, loaded: Any) -> list[str]:
    """Resolve the plugins again for `session` (with `loaded`, the settings read now) and put them in force.

    Returns the sentences to show: plugins installed on the way, problems, what started or stopped.
    """
    from tui.plugins.active import resolve
    from tui.plugins.wiring import plugin_hooks

    old = session.options.plugins
    active = resolve(Path(session.options.project_dir), loaded)
    session.options.plugins = active
    trusted = bool(getattr(session.policy, "trusted", loaded.trusted))
    _commands(session)
    agent_tool: Any = next((t for t in session.tools if t.name == "Agent"), None)
    if agent_tool is not None:
        agent_tool.reload()
    _hooks(session, plugin_hooks(active, loaded), loaded.trusted)
    said = active.notices()
    said += _servers(session, active, trusted)
    new_ids = {p.plugin_id for p in active.plugins} - {p.plugin_id for p in (old.plugins if old else [])}
    for plugin in (p for p in active.plugins if p.plugin_id in new_ids):
        if any(h.event == "SessionStart" for h in plugin.parts.hooks):
            said.append(f"The SessionStart hooks of {plugin.plugin_id} run from the next session.")
    return said


def _commands(session: AgentSession) -> None:
    """The catalog read again; the Skill tool lists what the model may load now (from the next request)."""
    from tui.agent.prompt.catalog import model_renderer, reload_catalog
    from tui.hooks.skills import SKILL_TOOL_PROMPT, SkillTool, skill_listing

    catalog = reload_catalog(session)
    skill_tool = next((t for t in session.tools if t.name == "Skill"), None)
    offered = catalog.skills_for_model()
    if skill_tool is not None:
        skill_tool.description = f"{SKILL_TOOL_PROMPT}\n\n{skill_listing(offered)}"  # type: ignore[misc]
    elif offered and getattr(session, "catalog", None) is catalog:
        skill_tool = SkillTool(catalog, model_renderer(session))
        for tools in (session.tools, session.base_tools):
            tools.append(skill_tool)
        session.dispatcher.tools[skill_tool.name] = skill_tool
    session._tool_defs = None


def _hooks(session: AgentSession, hooks: list[Any], trusted: bool) -> None:
    """The plugins' hooks replace those of the plugins before (the settings files' stay)."""
    from tui.hooks.config import HookConfig

    from .hook_points import SessionHooks

    config = session.options.hooks
    if config is None and not hooks:
        return
    if config is None:
        session.options.hooks = config = HookConfig([], trusted=trusted)
    config.hooks = [*(h for h in config.hooks if not h.plugin), *hooks]
    if session.hooks is None:
        session.hooks = session.dispatcher.hooks = SessionHooks(session, config)


def _servers(session: AgentSession, active: Any, trusted: bool) -> list[str]:
    """Start the plugins' new MCP servers, stop those no plugin brings now; a sentence for each change."""
    servers, _ = active.mcp_servers(trusted)
    wanted = {s.name: s for s in servers}
    runtime: Any = getattr(session, "mcp", None)
    states = runtime.manager.states if runtime is not None else {}
    said = []
    stop = [
        name
        for name, state in states.items()
        if state.config.source == "plugin" and name not in wanted and state.status != "disabled"
    ]
    for name in stop:
        threading.Thread(
            target=runtime.manager.set_enabled, args=(name, False), name=f"mcp-stop-{name}", daemon=True
        ).start()
    again = [name for name in wanted if name in states and states[name].status == "disabled"]
    for name in again:
        threading.Thread(
            target=runtime.manager.set_enabled, args=(name, True), name=f"mcp-start-{name}", daemon=True
        ).start()
    new = [s for name, s in wanted.items() if name not in states]
    if new:
        from .mcp_link import start_servers

        start_servers(session, new)
    if started := [s.name for s in new] + again:
        said.append(f"Starting {plural(len(started), 'plugin MCP server')}: {', '.join(started)}.")
    if stop:
        said.append(f"Stopped {plural(len(stop), 'plugin MCP server')}: {', '.join(stop)}.")
    return said
