"""MCP server configuration: one typed entry per server, parsed from Claude Code's shapes.

`.mcp.json` and `--mcp-config` hold `{"mcpServers": {NAME: {...}}}`; the user settings hold
`[mcp_servers.NAME]` with the same keys. `${VAR}` and `${VAR:-default}` expand in
`command`, `args`, `env`, `url` and `headers`. A bad entry becomes one sentence naming the
file and the key, and only that server is skipped. Never imports the `mcp` SDK.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

#: "sdk": a server inside the Claude Agent SDK program that started agent-tui, reached over its control protocol
Transport = Literal["stdio", "http", "sse", "sdk"]
Source = Literal["cli", "local", "project", "user", "plugin"]

#: Claude Code's server name rule (tool names become `mcp__<server>__<tool>`)
NAME_PATTERN = re.compile(r"^[A-Za-z0-9_-]+$")
TRANSPORTS: dict[str, Transport] = {
    "stdio": "stdio",
    "http": "http",
    "streamable-http": "http",
    "sse": "sse",
    "sdk": "sdk",
}
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
#: keys Claude Code accepts that agent-tui reads but does not act on yet (no warning for them)
_QUIET_KEYS = {"alwaysLoad", "oauth", "headersHelper", "description", "disabled"}
_KNOWN_KEYS = {"type", "transport", "command", "args", "env", "cwd", "url", "headers", "timeout", *_QUIET_KEYS}


class McpConfigError(ValueError):
    """One server entry cannot be used; the message is one sentence naming the file and the key."""


@dataclass(frozen=True)
class McpServerConfig:
    """One MCP server as configured: how to reach it and where the entry came from."""

    name: str
    transport: Transport = "stdio"
    command: str = ""
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str = ""
    headers: Mapping[str, str] = field(default_factory=dict)
    source: Source = "user"
    #: the file the entry was read from ("--mcp-config" for a JSON string on the command line)
    source_path: str = ""
    #: start-up timeout of this server in seconds (the entry's `timeout`, in ms); None = MCP_TIMEOUT
    timeout: float | None = None

    def to_json(self) -> dict[str, Any]:
        """The entry in `.mcp.json` form (what `mcp get` and `add-json` speak)."""
        data: dict[str, Any] = {"type": self.transport}
        if self.transport == "sdk":
            data["name"] = self.name
        elif self.transport == "stdio":
            data.update(command=self.command, args=list(self.args))
            if self.env:
                data["env"] = dict(self.env)
            if self.cwd:
                data["cwd"] = self.cwd
        else:
            data["url"] = self.url
            if self.headers:
                data["headers"] = dict(self.headers)
        if self.timeout is not None:
            data["timeout"] = int(self.timeout * 1000)
        return data


def _table(source_path: str) -> str:
    """The name of the table that holds servers in this kind of file."""
    return "mcp_servers" if source_path.endswith(".toml") else "mcpServers"


def expand(value: str, env: Mapping[str, str], where: str) -> str:
    """`value` with `${VAR}` and `${VAR:-default}` replaced; McpConfigError names `where` and a missing VAR."""

    def one(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        found = env.get(name)
        if found is not None and (found != "" or default is None):
            return found
        if default is not None:
            return default
        raise McpConfigError(
            f"{where}: the variable ${{{name}}} is not set and has no default "
            f"(write ${{{name}:-value}} for one); the server was skipped."
        )

    return _VARIABLE.sub(one, value)


def _string(value: Any, where: str, key: str) -> str:
    if not isinstance(value, str):
        raise McpConfigError(f"{where}.{key}: expected a string; the server was skipped.")
    return value


def _strings(value: Any, where: str, key: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise McpConfigError(f"{where}.{key}: expected a list of strings; the server was skipped.")
    return list(value)


def _table_of_strings(value: Any, where: str, key: str) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise McpConfigError(f"{where}.{key}: expected a table of strings; the server was skipped.")
    return {str(k): v for k, v in value.items()}


def parse_server(
    name: str, entry: Any, *, source: Source, source_path: str, env: Mapping[str, str] | None = None
) -> McpServerConfig:
    """One entry as a McpServerConfig, variables expanded; McpConfigError (one sentence) when it cannot be used."""
    env = os.environ if env is None else env
    where = f"{source_path}: {_table(source_path)}.{name}"
    if not NAME_PATTERN.match(name):
        raise McpConfigError(
            f"{source_path}: {_table(source_path)}: the server name {name!r} may use only letters, "
            f"digits, '_' and '-' (no spaces); the server was skipped."
        )
    if not isinstance(entry, dict):
        raise McpConfigError(f"{where}: expected an object with a command or a url; the server was skipped.")
    kind = entry.get("type", entry.get("transport"))
    if kind is None:
        if "url" in entry and "command" not in entry:
            raise McpConfigError(
                f'{where}: has a url but no type; add "type": "http" (or "sse"); the server was skipped.'
            )
        kind = "stdio"
    if not isinstance(kind, str) or kind not in TRANSPORTS:
        raise McpConfigError(
            f"{where}.type: unknown transport {kind!r} (expected stdio, http, sse or sdk); the server was skipped."
        )
    transport = TRANSPORTS[kind]
    if transport == "sdk":  # the Agent SDK's in-process server: its tools are called over the control protocol
        if source != "cli":
            raise McpConfigError(
                f'{where}.type: "sdk" servers live inside a Claude Agent SDK program and come '
                "only with its --mcp-config; the server was skipped."
            )
        return McpServerConfig(name, "sdk", source=source, source_path=source_path)
    timeout = entry.get("timeout")
    seconds: float | None = None
    if timeout is not None:
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout < 0:
            raise McpConfigError(f"{where}.timeout: expected milliseconds (a number); the server was skipped.")
        seconds = timeout / 1000 if timeout >= 1000 else None  # Claude Code ignores values below 1000
    if transport == "stdio":
        if "command" not in entry:
            raise McpConfigError(f"{where}: a stdio server needs a command; the server was skipped.")
        command = expand(_string(entry["command"], where, "command"), env, f"{where}.command")
        if not command.strip():
            raise McpConfigError(f"{where}.command: is empty; the server was skipped.")
        args = [expand(a, env, f"{where}.args") for a in _strings(entry.get("args", []), where, "args")]
        server_env = {
            k: expand(v, env, f"{where}.env.{k}")
            for k, v in _table_of_strings(entry.get("env", {}), where, "env").items()
        }
        cwd = entry.get("cwd")
        cwd = expand(_string(cwd, where, "cwd"), env, f"{where}.cwd") if cwd is not None else None
        return McpServerConfig(
            name,
            "stdio",
            command=command,
            args=tuple(args),
            env=server_env,
            cwd=cwd,
            source=source,
            source_path=source_path,
            timeout=seconds,
        )
    if "url" not in entry:
        raise McpConfigError(f"{where}: an {transport} server needs a url; the server was skipped.")
    url = expand(_string(entry["url"], where, "url"), env, f"{where}.url")
    if not url.startswith(("http://", "https://")):
        raise McpConfigError(f"{where}.url: {url!r} is not an http(s) URL; the server was skipped.")
    headers = {
        k: expand(v, env, f"{where}.headers.{k}")
        for k, v in _table_of_strings(entry.get("headers", {}), where, "headers").items()
    }
    return McpServerConfig(
        name, transport, url=url, headers=headers, source=source, source_path=source_path, timeout=seconds
    )


def parse_servers(
    table: Any, *, source: Source, source_path: str, env: Mapping[str, str] | None = None
) -> tuple[list[McpServerConfig], list[str]]:
    """Every usable server of a `{NAME: entry}` table, and one sentence per entry that is not."""
    if not isinstance(table, dict):
        return [], [
            f"{source_path}: {_table(source_path)}: expected an object of servers by name; "
            "no server was loaded from it."
        ]
    servers: list[McpServerConfig] = []
    problems: list[str] = []
    for name, entry in table.items():
        try:
            servers.append(parse_server(str(name), entry, source=source, source_path=source_path, env=env))
        except McpConfigError as exc:
            problems.append(str(exc))
    return servers, problems


def parse_mcp_json(
    data: Any, *, source: Source, source_path: str, env: Mapping[str, str] | None = None
) -> tuple[list[McpServerConfig], list[str]]:
    """The servers of a parsed `.mcp.json` / `--mcp-config` document (`{"mcpServers": {...}}`)."""
    if not isinstance(data, dict):
        return [], [f'{source_path}: the top level must be an object with "mcpServers"; no server was loaded.']
    if "mcpServers" not in data:
        return [], [f'{source_path}: has no "mcpServers" key; no server was loaded.']
    return parse_servers(data["mcpServers"], source=source, source_path=source_path, env=env)


class ServerCwdMissing(FileNotFoundError):
    """A stdio server's `cwd` is not a folder: said as such, never as "the command was not found"."""


def server_cwd(config: McpServerConfig, project_dir: Path) -> str:
    """The folder a stdio server starts in: its `cwd` (`~` expanded, relative to the project), else the project."""
    return str(Path(project_dir) / os.path.expanduser(config.cwd)) if config.cwd else str(project_dir)


def cwd_problem(config: McpServerConfig, project_dir: Path) -> str | None:
    """Why a stdio server cannot start in its `cwd`, else None."""
    if config.transport != "stdio" or not config.cwd:
        return None
    folder = Path(server_cwd(config, project_dir))
    if folder.is_dir():
        return None
    state = "is not a folder" if folder.exists() else "does not exist"
    return f"its cwd {config.cwd} {state} (set `cwd` in {config.source_path or config.source} to an existing folder)"
