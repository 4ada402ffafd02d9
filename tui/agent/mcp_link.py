"""The session's MCP servers: the runtime built with its events published on the session's bus, and servers
started while the session runs (a folder's `.mcp.json` answered, a plugin turned on).

`tui/mcp` knows nothing of the engine: the runtime reports a server's change and each JSON-RPC message through
the callables given here, which turn them into `McpServerChanged` and `McpMessage`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from tui.mcp.config import McpServerConfig
from tui.mcp.connection import ServerState
from tui.mcp.runtime import McpRuntime

from .events import McpMessage, McpServerChanged

if TYPE_CHECKING:
    from .door import Session
    from .session import AgentSession


def mcp_runtime(session: AgentSession) -> McpRuntime:
    """The MCP runtime of `session`: a server's change and each message become events on its bus."""

    def changed(state: ServerState) -> None:
        config = state.config
        session.publish(
            McpServerChanged(
                server=state.name,
                status=state.status,
                transport=config.transport,
                source=config.source,
                tools=tuple(str(t.get("name", "")) for t in state.tools),
                resources=len(state.resources),
                prompts=len(state.prompts),
                error=state.error,
                stderr_tail=state.stderr_tail,
                warnings=tuple(state.warnings),
            )
        )

    def message(server: str, direction: str, message: dict[str, Any]) -> None:
        session.publish(McpMessage(server=server, direction=direction, message=message))

    return McpRuntime(session, on_change=changed, on_message=message)


def start_servers(
    session: Session, configs: Iterable[McpServerConfig], disabled: Iterable[McpServerConfig] = ()
) -> list[str]:
    """Connect `configs` in `session` (in the background) unless already there; returns the names started.

    `disabled` servers are listed but not started, so /mcp can enable them.
    """
    configs, disabled = list(configs), list(disabled)
    if not configs and not disabled:
        return []
    runtime = session.start_mcp()
    for config in disabled:
        runtime.manager.add(config, enabled=False)
    started = [c.name for c in configs if runtime.manager.add(c)]
    if started:
        runtime.start()
    return started
