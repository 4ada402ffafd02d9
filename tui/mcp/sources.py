"""Where MCP servers come from, merged in Claude Code's precedence: cli > local > project > user.

- `--mcp-config FILE_OR_JSON…` (source "cli"); with `--strict-mcp-config` only those count.
- local: `[mcp_servers]` of `.agent-tui/settings.local.toml` (trusted folder only) and
  `[projects."<dir>".mcp_servers]` of the user settings (yours, so always).
- project: the folder's `.mcp.json`, only in a trusted folder and only the approved servers.
- user: `[mcp_servers.NAME]` of the user settings.

For one name the highest source wins whole, with no field merge. Never imports the SDK.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tui.config.bounded_read import BoundedReadError, parse_json_text
from tui.config.paths import local_settings_file, project_settings_file, user_settings_file
from tui.config.rule_files import parse_settings_text, read_settings_text
from tui.mcp.config import McpServerConfig, Source, parse_mcp_json, parse_servers

PROJECT_FILE = ".mcp.json"
#: the cap of one MCP tool result, in tokens (Claude Code's MAX_MCP_OUTPUT_TOKENS)
DEFAULT_MAX_OUTPUT_TOKENS = 25_000
#: decides which of the project's `.mcp.json` servers start; the approval dialog supplies its own
ProjectFilter = Callable[[list[McpServerConfig]], list[McpServerConfig]]


@dataclass
class McpjsonChoices:
    """The user's answers about project servers (Claude Code's keys), merged from every settings file."""

    enabled: set[str] = field(default_factory=set)
    disabled: set[str] = field(default_factory=set)
    enable_all: bool = False

    def state(self, name: str) -> str:
        """ "disabled" (rejected anywhere wins), "enabled", or "new" (never answered)."""
        if name in self.disabled:
            return "disabled"
        if self.enable_all or name in self.enabled:
            return "enabled"
        return "new"


@dataclass
class McpServers:
    """The servers to connect, and what was held back or could not be read."""

    servers: list[McpServerConfig] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    #: every server of the project's `.mcp.json` that parsed (the approval dialog lists them)
    project: list[McpServerConfig] = field(default_factory=list)
    #: project servers not started, by name: "untrusted folder" | "disabled" | "not approved"
    held_back: dict[str, str] = field(default_factory=dict)
    max_output_tokens: int = DEFAULT_MAX_OUTPUT_TOKENS
    choices: McpjsonChoices = field(default_factory=McpjsonChoices)


def _read(path: Path, problems: list[str] | None) -> dict[str, Any] | None:
    """A parsed settings/JSON file, None when missing or broken (the problem appended when asked)."""
    return _read_with_text(path, problems)[1]


def _read_with_text(path: Path, problems: list[str] | None) -> tuple[str, dict[str, Any] | None]:
    """(text, parsed content) of a settings/JSON file, as `_read`; the text is "" when there is none."""
    text, problem = read_settings_text(path)
    if problem and problems is not None:
        problems.append(problem)
    if text is None:
        return "", None
    data, problem = parse_settings_text(path, text)
    if problem and problems is not None:
        problems.append(problem.replace("the file was skipped", "no MCP server was loaded from it"))
    return text, data


class _Object(dict[str, Any]):
    """A JSON object that remembers the keys it held more than once (json keeps the last)."""

    repeated: list[str]


def _remember_repeats(pairs: list[tuple[str, Any]]) -> _Object:
    obj = _Object()
    obj.repeated = []
    for key, value in pairs:
        if key in obj and key not in obj.repeated:
            obj.repeated.append(key)
        obj[key] = value
    return obj


def repeated_servers(text: str, label: str) -> list[str]:
    """One sentence per server name an `.mcp.json`-shaped text gives twice, saying which entry is used."""
    try:
        data = parse_json_text(label, text, object_pairs_hook=_remember_repeats)
    except ValueError:
        return []  # the parse error is reported where the file is read
    problems = []
    if isinstance(data, _Object) and "mcpServers" in data.repeated:
        problems.append(f'{label}: "mcpServers" appears more than once; only the last one is used.')
    servers: Any = data.get("mcpServers") if isinstance(data, dict) else None
    for name in servers.repeated if isinstance(servers, _Object) else []:
        entry = servers[name] if isinstance(servers[name], dict) else {}
        what = entry.get("command") or entry.get("url")
        used = f" (`{what}`)" if isinstance(what, str) else ""
        problems.append(
            f'{label}: the MCP server {name!r} is defined more than once in "mcpServers"; '
            f"the last definition{used} wins."
        )
    return problems


def _names(value: Any) -> set[str]:
    return {v for v in value if isinstance(v, str)} if isinstance(value, list) else set()


def settings_files(project_dir: Path, trusted: bool) -> list[tuple[Path, bool]]:
    """(settings file, lives in the folder) in layer order; the folder's committed files only when trusted."""
    files = [(user_settings_file(), False)]
    if trusted:
        files += [(project_dir / ".claude" / "settings.json", True), (project_settings_file(project_dir), True)]
    files += [(project_dir / ".claude" / "settings.local.json", True), (local_settings_file(project_dir), True)]
    return files


def mcpjson_choices(project_dir: Path, trusted: bool) -> McpjsonChoices:
    """enabledMcpjsonServers / disabledMcpjsonServers / enableAllProjectMcpServers from every settings file."""
    choices = McpjsonChoices()
    for path, _ in settings_files(project_dir, trusted):
        data = _read(path, None) or {}
        choices.enabled |= _names(data.get("enabledMcpjsonServers"))
        choices.disabled |= _names(data.get("disabledMcpjsonServers"))
        choices.enable_all = choices.enable_all or data.get("enableAllProjectMcpServers") is True
    return choices


def default_project_filter(choices: McpjsonChoices) -> ProjectFilter:
    """Until the approval dialog answers: every project server starts unless it was disabled."""
    return lambda servers: [s for s in servers if choices.state(s.name) != "disabled"]


def read_mcp_config_arg(value: str, env: Mapping[str, str] | None = None) -> tuple[list[McpServerConfig], list[str]]:
    """The servers of one `--mcp-config` value: a JSON string or a JSON file."""
    text: str | None
    if value.lstrip().startswith("{"):
        label, text = "--mcp-config", value
    else:
        label, (text, problem) = value, read_settings_text(Path(value))
        if text is None:
            return [], [problem or f"--mcp-config: no such file: {value}."]
    try:
        data = parse_json_text(label, text)
    except json.JSONDecodeError as exc:
        return [], [
            f"{label}:{exc.lineno}:{exc.colno}: the JSON is not valid ({exc.msg}); no MCP server was loaded from it."
        ]
    except BoundedReadError as exc:
        return [], [f"{str(exc).rstrip('.')}; no MCP server was loaded from it."]
    servers, problems = parse_mcp_json(data, source="cli", source_path=label, env=env)
    return servers, repeated_servers(text, label) + problems


def _max_output_tokens(layers: Iterable[dict[str, Any]], env: Mapping[str, str], problems: list[str]) -> int:
    cap = DEFAULT_MAX_OUTPUT_TOKENS
    for data in layers:
        table = data.get("mcp")
        value = table.get("max_output_tokens") if isinstance(table, dict) else None
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            cap = value
    raw = env.get("MAX_MCP_OUTPUT_TOKENS", "").strip()
    if raw:
        if raw.isdigit() and int(raw) > 0:
            cap = int(raw)
        else:
            problems.append(f"MAX_MCP_OUTPUT_TOKENS: expected a whole number of tokens, not {raw!r}; using {cap}.")
    return cap


def load_mcp_servers(
    project_dir: Path,
    *,
    trusted: bool,
    cli_configs: Sequence[str] = (),
    strict: bool = False,
    approve: ProjectFilter | None = None,
    env: Mapping[str, str] | None = None,
) -> McpServers:
    """Every configured server for `project_dir`, precedence resolved, project servers filtered by trust and `approve`."""
    env = os.environ if env is None else env
    result = McpServers()
    by_source: dict[Source, list[McpServerConfig]] = {"cli": [], "local": [], "project": [], "user": []}
    for value in cli_configs:
        servers, problems = read_mcp_config_arg(value, env)
        by_source["cli"] += servers
        result.problems += problems
    layers: list[dict[str, Any]] = []
    if not strict:
        user_file = user_settings_file()
        user = _read(user_file, None) or {}
        layers.append(user)
        if "mcp_servers" in user:
            _add(by_source, result, "user", user["mcp_servers"], str(user_file), env)
        projects = user.get("projects")
        for folder in dict.fromkeys([str(project_dir), os.path.realpath(project_dir)]):
            mine = projects.get(folder) if isinstance(projects, dict) else None
            if isinstance(mine, dict) and "mcp_servers" in mine:
                _add(by_source, result, "local", mine["mcp_servers"], str(user_file), env)
        if trusted:
            local_file = local_settings_file(project_dir)
            project_settings = _read(project_settings_file(project_dir), None) or {}
            local = _read(local_file, None) or {}
            layers += [project_settings, local]
            if "mcp_servers" in local:
                _add(by_source, result, "local", local["mcp_servers"], str(local_file), env)
        _load_project(project_dir, trusted, approve, env, by_source, result)
    result.max_output_tokens = _max_output_tokens(layers, env, result.problems)
    chosen: dict[str, McpServerConfig] = {}
    for source in ("user", "project", "local", "cli"):  # later sources replace earlier ones whole
        for server in by_source[source]:
            chosen.pop(server.name, None)
            chosen[server.name] = server
    result.servers = list(chosen.values())
    return result


def _add(
    by_source: dict[Source, list[McpServerConfig]],
    result: McpServers,
    source: Source,
    table: Any,
    path: str,
    env: Mapping[str, str],
) -> None:
    servers, problems = parse_servers(table, source=source, source_path=path, env=env)
    by_source[source] += servers
    result.problems += problems


def _load_project(
    project_dir: Path,
    trusted: bool,
    approve: ProjectFilter | None,
    env: Mapping[str, str],
    by_source: dict[Source, list[McpServerConfig]],
    result: McpServers,
) -> None:
    """The folder's `.mcp.json`: nothing starts untrusted; trusted, `approve` (default: not disabled) decides."""
    path = project_dir / PROJECT_FILE
    problems: list[str] = []
    text, data = _read_with_text(path, problems)
    if data is None:
        result.problems += problems if trusted else []
        return
    servers, more = parse_mcp_json(data, source="project", source_path=str(path), env=env)
    more = repeated_servers(text, str(path)) + more
    result.project = servers
    if not trusted:
        result.held_back.update({s.name: "untrusted folder" for s in servers})
        return
    result.problems += problems + more
    result.choices = mcpjson_choices(project_dir, trusted)
    approved = (approve or default_project_filter(result.choices))(servers)
    names = {s.name for s in approved}
    for server in servers:
        if server.name not in names:
            result.held_back[server.name] = (
                "disabled" if result.choices.state(server.name) == "disabled" else "not approved"
            )
    by_source["project"] += approved
