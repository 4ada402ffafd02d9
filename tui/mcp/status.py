"""What `agent-tui mcp list/get` show: the configured servers and whether each one answers.

The probe connects with the SDK, initializes and lists the tools under a timeout
(`MCP_TIMEOUT`, at most 30 s here), all servers in parallel, then closes every connection
(a stdio server's process group goes with it). Imported only by those two commands.
"""

from __future__ import annotations

import asyncio
import errno
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
#: the order `claude mcp list` shows the scopes in (servers of one scope in the order they were added)
SCOPE_ORDER = ("user", "project", "local")
#: why a connection was refused, in Claude Code's words (its runtime's sentence for ECONNREFUSED)
REFUSED = "ECONNREFUSED: Unable to connect. Is the computer able to access the url?"
CLOSED = "CONNECTION_CLOSED: Connection closed"


@dataclass
class Configured:
    """The servers that would start here, and the project servers held back (name -> why)."""

    servers: list[McpServerConfig] = field(default_factory=list)
    held: dict[str, str] = field(default_factory=dict)
    held_servers: list[McpServerConfig] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def all(self) -> list[McpServerConfig]:
        """Every server to show, as `claude mcp list` orders them: user, project (held back ones too), local."""
        everything = [*self.servers, *self.held_servers]
        rank = {scope: i for i, scope in enumerate(SCOPE_ORDER)}
        return sorted(everything, key=lambda s: rank.get(s.source, len(rank)))


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


def list_line(server: McpServerConfig, status: str) -> str:
    """One line of `mcp list`, spaced as `claude mcp list` (a stdio server without arguments keeps the space)."""
    shown = f"{server.command} {' '.join(server.args)}" if server.transport == "stdio" else describe(server)
    return f"{server.name}: {shown} - {status}"


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
    """ "connected", "needs login" or "failed: why": whether the server answers `initialize` and `tools/list` in time,
    and why not in Claude Code's words (`ECONNREFUSED: …`, `CONNECTION_CLOSED: Connection closed` …).

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
        if _caused_by(exc, NeedsLogin):
            return "needs login"
        why = failure_reason(exc, server, timeout)
        return f"failed: {why}" if why else "failed"


def failure_reason(exc: BaseException, server: McpServerConfig, timeout: float) -> str:
    """Why a connection failed, as `claude mcp list` appends it after `✘ Failed to connect —`."""
    leaves = list(_leaves(exc))
    if any(isinstance(e, TimeoutError) for e in leaves):
        return f'MCP server "{server.name}" connection timed out after {int(timeout * 1000)}ms'
    os_error = next((e for e in leaves if isinstance(e, OSError) and e.errno), None)
    if os_error is not None and os_error.errno is not None:
        code = errno.errorcode.get(os_error.errno, str(os_error.errno))
        if server.transport == "stdio" and isinstance(os_error, (FileNotFoundError, PermissionError)):
            return f"{code}: {(os_error.strerror or '').lower()}, posix_spawn '{server.command}'"
        text = REFUSED if os_error.errno == errno.ECONNREFUSED else f"{code}: {os_error.strerror or os_error}"
        return f"SSE error: {text}" if server.transport == "sse" else text
    if any(type(e).__name__ in ("McpError", "MCPError") and str(e) == "Connection closed" for e in leaves):
        return CLOSED
    plain = [e for e in leaves if not isinstance(e, (asyncio.CancelledError, BaseExceptionGroup)) and str(e)]
    return str(plain[0]).splitlines()[0] if plain else ""


def _leaves(exc: BaseException, depth: int = 0) -> list[BaseException]:
    """`exc`, what it groups, and what caused it, depth first."""
    found = [exc]
    if depth < 8:
        for inner in [*getattr(exc, "exceptions", ()), exc.__cause__, exc.__context__]:
            if inner is not None:
                found += _leaves(inner, depth + 1)
    return found


def _caused_by(exc: BaseException, kind: type[BaseException]) -> bool:
    """Whether `kind` is `exc`, inside it (an exception group) or behind it (its cause or context)."""
    if isinstance(exc, kind):
        return True
    inner = list(getattr(exc, "exceptions", ())) + [e for e in (exc.__cause__, exc.__context__) if e is not None]
    return any(_caused_by(e, kind) for e in inner)


def probe_all(servers: Sequence[McpServerConfig], project_dir: Path) -> dict[str, tuple[str, str]]:
    """Each server's status ("✔ Connected", "✘ Failed to connect", …) and why it failed ("" when no reason),
    checked in parallel."""

    async def run() -> list[str]:
        timeout = probe_timeout()
        return list(await asyncio.gather(*(probe(s, project_dir, timeout) for s in servers)))

    results = asyncio.run(run()) if servers else []
    return {s.name: _status(s.name, state) for s, state in zip(servers, results)}


def _status(name: str, state: str) -> tuple[str, str]:
    state, _, why = state.partition(": ")
    return STATUS[state].format(name=name), why


def status_line(status: str, issue: str) -> str:
    """`✘ Failed to connect — ECONNREFUSED: …`: the status, and why after a dash as `claude mcp list` shows it."""
    return f"{status} — {issue}" if issue else status
