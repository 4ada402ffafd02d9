"""Hand the enabled plugins to a session's options: their hooks and MCP servers join the others.

Commands and skills reach the catalog through `AgentOptions.plugins` (tui.hooks.commands.load_catalog),
agents through the Agent tool (tui.agent.subagents), both reading the same `ActivePlugins`.
"""

from __future__ import annotations

from typing import Any

from .active import ActivePlugins, resolve


def attach_plugins(opts: Any, loaded: Any) -> ActivePlugins:
    """Resolve the plugins for `opts.project_dir` into `opts.plugins` (its `notices()` are for stderr or toasts)."""
    opts.plugins = resolve(opts.project_dir, loaded)
    return opts.plugins


def plugin_hooks(active: ActivePlugins | None, loaded: Any) -> list[Any]:
    """The plugins' hooks, unless `disableAllHooks` is set."""
    if active is None or loaded.hooks_disabled_by:
        return []
    return active.hooks()


def add_plugin_servers(opts: Any, trusted: bool) -> None:
    """Put the plugins' MCP servers after the configured ones (a configured server of the same name wins)."""
    active = getattr(opts, "plugins", None)
    if active is None:
        return
    servers, held = active.mcp_servers(trusted)
    taken = {s.name for s in opts.mcp_servers}
    opts.mcp_servers = [*opts.mcp_servers, *(s for s in servers if s.name not in taken)]
    opts.mcp_held_back = {**opts.mcp_held_back, **held}
