"""The user's answers about a folder's `.mcp.json` servers, kept in its local settings.

Claude Code's keys, so a folder used with both tools agrees: `enabledMcpjsonServers` and
`disabledMcpjsonServers` in `.agent-tui/settings.local.toml` (never committed). Claude
Code's `.claude/settings.local.json` is read too (tui/mcp/sources.py merges them).
Written with tomlkit so the file keeps its comments.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from tui.config.paths import local_settings_file
from tui.config.rule_files import SettingsWriteError, read_for_update, write_text_atomic
from tui.mcp.config import McpServerConfig
from tui.mcp.sources import McpServers, ProjectFilter, load_mcp_servers, mcpjson_choices

if TYPE_CHECKING:
    from tomlkit import TOMLDocument  # imported when a file is edited


ENABLED_KEY = "enabledMcpjsonServers"
DISABLED_KEY = "disabledMcpjsonServers"


def new_project_servers(loaded: McpServers) -> list[McpServerConfig]:
    """The folder's servers the user has never answered about (nothing to ask in an untrusted folder)."""
    return [s for s in loaded.project if loaded.held_back.get(s.name) == "not approved"]


def _edit(project_dir: Path) -> tuple[Path, TOMLDocument]:
    """The local settings file and its tomlkit document (empty when missing)."""
    import tomlkit

    path = local_settings_file(project_dir)
    text, _ = read_for_update(path)
    return path, tomlkit.parse(text)


def _names(doc: TOMLDocument, key: str, path: Path) -> list[str]:
    value = doc.get(key, [])
    if not isinstance(value, list):
        raise SettingsWriteError(
            f"{path}: key `{key}` is not a list of server names; fix it first; nothing was changed."
        )
    return [str(v) for v in value]


def record_choices(project_dir: Path, enabled: Iterable[str], disabled: Iterable[str]) -> Path:
    """Remember which project servers the user enabled and which not; a later answer replaces an earlier one."""
    path, doc = _edit(project_dir)
    enabled, disabled = list(enabled), list(disabled)
    now_on = [n for n in _names(doc, ENABLED_KEY, path) if n not in disabled]
    now_off = [n for n in _names(doc, DISABLED_KEY, path) if n not in enabled]
    doc[ENABLED_KEY] = list(dict.fromkeys([*now_on, *enabled]))
    doc[DISABLED_KEY] = list(dict.fromkeys([*now_off, *disabled]))
    import tomlkit

    write_text_atomic(path, tomlkit.dumps(doc))
    return path


def reset_choices(project_dir: Path) -> Path:
    """Forget every answer about this folder's project servers (the app asks again)."""
    path, doc = _edit(project_dir)
    for key in (ENABLED_KEY, DISABLED_KEY):
        doc.pop(key, None)
    if path.exists():
        import tomlkit

        write_text_atomic(path, tomlkit.dumps(doc))
    return path


def only_enabled(project_dir: Path, trusted: bool) -> ProjectFilter:
    """The app's filter at start: project servers the user enabled start; new ones wait for the dialog."""
    choices = mcpjson_choices(project_dir, trusted)
    return lambda servers: [s for s in servers if choices.state(s.name) == "enabled"]


def project_servers(project_dir: Path) -> tuple[list[McpServerConfig], list[McpServerConfig]]:
    """For a trusted folder: (servers to ask about, servers already enabled), both not shadowed by another scope."""
    new, enabled, _ = project_servers_split(project_dir)
    return new, enabled


def project_servers_split(project_dir: Path) -> tuple[list[McpServerConfig], ...]:
    """For a trusted folder: (to ask about, enabled, disabled) project servers, none shadowed by another scope."""
    loaded = load_mcp_servers(project_dir, trusted=True, approve=only_enabled(project_dir, True))
    winners = {s.name: s for s in loaded.servers}
    enabled = [s for s in loaded.project if winners.get(s.name) is s]
    disabled = [s for s in loaded.project if loaded.held_back.get(s.name) == "disabled" and s.name not in winners]
    return [s for s in new_project_servers(loaded) if s.name not in winners], enabled, disabled


def remember_enabled(project_dir: Path, name: str, enabled: bool) -> str:
    """/mcp's enable or disable of a project server, kept in local settings; the sentence that says where."""
    path = record_choices(project_dir, [name] if enabled else [], [] if enabled else [name])
    key = ENABLED_KEY if enabled else DISABLED_KEY
    return f"{'Enabled' if enabled else 'Disabled'} {name} for this folder ({key} in {path})."
