"""The files `agent-tui mcp add/remove` edit, one per scope, keeping comments and every other key.

- local (the default, as Claude Code's): `[projects."<dir>".mcp_servers.NAME]` in the user settings,
  private to you and to this folder; `[mcp_servers]` of `.agent-tui/settings.local.toml` is read too.
- project: `mcpServers` of the folder's `.mcp.json` (JSON, shared with the team and with Claude Code).
- user: `[mcp_servers.NAME]` in the user settings, for every folder.

TOML goes through tomlkit, the only writer that keeps the user's comments and layout (tomli-w
would drop every comment of `settings.toml`); it is imported only by these commands.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from tui.config.paths import local_settings_file, user_settings_file
from tui.config.rule_files import SettingsWriteError, read_for_update, write_text_atomic

Scope = Literal["local", "project", "user"]
SCOPES: tuple[Scope, ...] = ("local", "project", "user")
PROJECT_FILE = ".mcp.json"
SCOPE_LABELS: dict[Scope, str] = {
    "local": "Local config (private to you in this project)",
    "project": "Project config (shared via .mcp.json)",
    "user": "User config (available in all your projects)",
}


@dataclass(frozen=True)
class Place:
    """One table of servers: the file, the keys leading to the table, and how to name it to the user."""

    scope: Scope
    path: Path
    keys: tuple[str, ...]

    def label(self) -> str:
        """`file` or `file [project: dir]`, as Claude Code prints the file it modified."""
        if self.keys[:1] == ("projects",):
            return f"{self.path} [project: {self.keys[1]}]"
        return str(self.path)

    def key_name(self) -> str:
        """The dotted key of the table, for messages (`projects."/dir".mcp_servers`)."""
        return ".".join(f'"{k}"' if "/" in k or "." in k else k for k in self.keys)


def places(scope: Scope, project_dir: Path) -> list[Place]:
    """Where servers of `scope` live; the first is where `add` writes."""
    if scope == "project":
        return [Place(scope, project_dir / PROJECT_FILE, ("mcpServers",))]
    if scope == "user":
        return [Place(scope, user_settings_file(), ("mcp_servers",))]
    return [
        Place(scope, user_settings_file(), ("projects", str(project_dir), "mcp_servers")),
        Place(scope, local_settings_file(project_dir), ("mcp_servers",)),
    ]


def _table(data: Any, place: Place, *, create: bool = False) -> dict[str, Any] | None:
    """The servers table of `data` at `place` (None when absent); SettingsWriteError when a key is no table."""
    node = data
    for depth, key in enumerate(place.keys):
        child = node.get(key)
        if child is None:
            if not create:
                return None
            child = _new_table(place, depth)
            node[key] = child
            child = node[key]
        if not isinstance(child, dict):
            shown = ".".join(place.keys[: depth + 1])
            raise SettingsWriteError(
                f"{place.path}: key `{shown}` is not a table of servers; fix it first; nothing was changed."
            )
        node = child
    return node


def _new_table(place: Place, depth: int) -> Any:
    if place.path.suffix == ".json":
        return {}
    import tomlkit

    return tomlkit.table(is_super_table=True)  # holds only tables: no `[a]` header of its own


def read_servers(place: Place) -> dict[str, Any]:
    """The raw server entries at `place` ({} when the file or table is missing)."""
    _, data = read_for_update(place.path)
    table = _table(data, place)
    return dict(table) if table else {}


def scoped_entries(project_dir: Path) -> Iterator[tuple[Place, str, Any]]:
    """(place, name, raw entry) of every server in every scope, local first; a broken file raises."""
    for scope in SCOPES:
        for place in places(scope, project_dir):
            for name, entry in read_servers(place).items():
                yield place, str(name), entry


def add_server(place: Place, name: str, entry: dict[str, Any]) -> None:
    """Write `entry` as server `name` at `place`; ValueError when the name is taken there."""
    text, data = read_for_update(place.path)
    if place.path.suffix == ".json":
        table = _table(data, place, create=True)
        assert table is not None
        if name in table:
            raise ValueError(f"MCP server {name} already exists in {place.scope} config")
        table[name] = entry
        write_text_atomic(place.path, json.dumps(data, indent=2) + "\n")
        return
    import tomlkit

    doc = tomlkit.parse(text)
    table = _table(doc, place, create=True)
    assert table is not None
    if name in table:
        raise ValueError(f"MCP server {name} already exists in {place.scope} config")
    table[name] = _toml_entry(entry)
    write_text_atomic(place.path, _ended(tomlkit.dumps(doc)))


def _toml_entry(entry: dict[str, Any]) -> Any:
    """A `[...NAME]` table whose env and headers are inline tables (one short line each)."""
    import tomlkit

    table = tomlkit.table()
    for key, value in entry.items():
        if isinstance(value, dict):
            inline = tomlkit.inline_table()
            inline.update(value)
            table[key] = inline
        else:
            table[key] = value
    return table


def remove_server(place: Place, name: str) -> bool:
    """Remove server `name` at `place`; False when it is not there."""
    text, data = read_for_update(place.path)
    if place.path.suffix == ".json":
        table = _table(data, place)
        if not table or name not in table:
            return False
        del table[name]
        write_text_atomic(place.path, json.dumps(data, indent=2) + "\n")
        return True
    import tomlkit

    doc = tomlkit.parse(text)
    table = _table(doc, place)
    if not table or name not in table:
        return False
    del table[name]
    write_text_atomic(place.path, _ended(tomlkit.dumps(doc)))
    return True


def _ended(text: str) -> str:
    """TOML text ending with one newline (tomlkit leaves the last table without one)."""
    return text if not text or text.endswith("\n") else text + "\n"
