"""What `agent-tui mcp list/get` show: the configured servers and whether each one answers.

The probe connects with the SDK, initializes and lists the tools under a timeout
(`MCP_TIMEOUT`, at most 30 s here), all servers in parallel, then closes every connection
(a stdio server's process group goes with it). Imported only by those two commands.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tui.mcp.approval import only_enabled
from tui.mcp.config import McpServerConfig, ServerCwdMissing, cwd_problem, server_cwd
from tui.mcp.sources import load_mcp_servers

#: a health check gives up after this many seconds (MCP_TIMEOUT, when smaller, wins)
PROBE_TIMEOUT = 30.0
#: a probe's result as `claude mcp list` words it
STATUS = {
    "connected": "✔ Connected",
    "failed": "✘ Failed to connect",
    "needs login": "⚠ Needs authentication (run `agent-tui mcp login {name}`)",
}
#: why a project server does not start, as `list` shows it
HELD_BACK = {
    "not approved": "⏸ Pending approval (run `agent-tui` to approve)",
    "untrusted folder": "⏸ Folder not trusted (/trust in agent-tui loads it, then approve)",
    "disabled": "✘ Rejected in this project (`agent-tui mcp reset-project-choices` asks again)",
}


@dataclass
class Configured:
    """The servers that would start here, and the project servers held back (name -> why)."""

    servers: list[McpServerConfig] = field(default_factory=list)
    held: dict[str, str] = field(default_factory=dict)
    held_servers: list[McpServerConfig] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def all(self) -> list[McpServerConfig]:
        """Every server to show: those that start, then the held-back project ones."""
        return [*self.servers, *self.held_servers]


def configured(project_dir: Path) -> Configured:
    """The servers configured for `project_dir`, as the app would load them before asking about new ones."""
    from tui.config.settings import load_settings

    trusted = load_settings(project_dir).trusted
    loaded = load_mcp_servers(project_dir, trusted=trusted, approve=only_enabled(project_dir, trusted))
    names = {s.name for s in loaded.servers}
    held = [s for s in loaded.project if s.name in loaded.held_back and s.name not in names]
    return Configured(loaded.servers, {s.name: loaded.held_back[s.name] for s in held}, held, loaded.problems)


def describe(server: McpServerConfig) -> str:
    """`command args` for stdio, `url (HTTP)` / `url (SSE)` otherwise (the shape of `claude mcp list`)."""
    if server.transport == "stdio":
        return " ".join([server.command, *server.args])
    return f"{server.url} ({server.transport.upper()})"


def probe_timeout() -> float:
    """MCP_TIMEOUT (milliseconds, as Claude Code reads it) when set and smaller than PROBE_TIMEOUT."""
    raw = os.environ.get("MCP_TIMEOUT", "").strip()
    if raw.isdigit() and int(raw) > 0:
        return min(int(raw) / 1000, PROBE_TIMEOUT)
    return PROBE_TIMEOUT


@asynccontextmanager
async def _streams(server: McpServerConfig, project_dir: Path, interactive: bool) -> AsyncIterator[tuple[Any, Any]]:
    if server.transport == "stdio":
        from mcp import StdioServerParameters
        from mcp.client.stdio import stdio_client

        env = {**os.environ, "CLAUDE_PROJECT_DIR": str(project_dir), **dict(server.env)}
        if problem := cwd_problem(server, project_dir):
            raise ServerCwdMissing(problem)
        params = StdioServerParameters(
            command=server.command, args=list(server.args), env=env, cwd=server_cwd(server, project_dir)
        )
        with open(os.devnull, "w") as errlog:  # a health check shows no server chatter
            async with stdio_client(params, errlog=errlog) as (read, write):
                yield read, write
        return
    from mcp.shared._httpx_utils import create_mcp_http_client

    from tui.mcp.oauth import auth_for

    auth = auth_for(server, interactive=interactive)
    client = create_mcp_http_client(headers=dict(server.headers) or None, auth=auth)
    async with client:
        if server.transport == "sse":
            from mcp.client.sse import sse_client

            async with sse_client(server.url, headers=dict(server.headers) or None, auth=auth) as streams:
                yield streams[0], streams[1]
        else:
            from mcp.client.streamable_http import streamable_http_client

            async with streamable_http_client(server.url, http_client=client) as streams:
                yield streams[0], streams[1]


async def probe(server: McpServerConfig, project_dir: Path, timeout: float, *, interactive: bool = False) -> str:
    """ "connected", "needs login" or "failed" (or "failed: why"): whether the server answers `initialize` and
    `tools/list` in time.

    `interactive` lets an OAuth server's sign-in run (the browser step), as `mcp login` does.
    """
    from mcp import ClientSession

    from tui.mcp.oauth import NeedsLogin

    try:
        async with (
            asyncio.timeout(timeout),
            _streams(server, project_dir, interactive) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            await session.list_tools()
        return "connected"
    except ServerCwdMissing as exc:
        return f"failed: {exc}"
    except Exception as exc:  # noqa: BLE001 - any failure (spawn, HTTP, protocol, timeout) is "failed to connect"
        return "needs login" if _caused_by(exc, NeedsLogin) else "failed"


def _caused_by(exc: BaseException, kind: type[BaseException]) -> bool:
    """Whether `kind` is `exc`, inside it (an exception group) or behind it (its cause or context)."""
    if isinstance(exc, kind):
        return True
    inner = list(getattr(exc, "exceptions", ())) + [e for e in (exc.__cause__, exc.__context__) if e is not None]
    return any(_caused_by(e, kind) for e in inner)


def probe_all(servers: Sequence[McpServerConfig], project_dir: Path) -> dict[str, str]:
    """Each server's status line ("✔ Connected", "✘ Failed to connect", …), checked in parallel."""

    async def run() -> list[str]:
        timeout = probe_timeout()
        return list(await asyncio.gather(*(probe(s, project_dir, timeout) for s in servers)))

    results = asyncio.run(run()) if servers else []
    return {s.name: _status_line(s.name, state) for s, state in zip(servers, results)}


def _status_line(name: str, state: str) -> str:
    """`✘ Failed to connect`, with the reason when one is known before any connection (a missing cwd)."""
    state, _, why = state.partition(": ")
    return STATUS[state].format(name=name) + (f" ({why})" if why else "")
