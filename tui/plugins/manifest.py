"""The two JSON formats of Claude Code plugins: `.claude-plugin/plugin.json` and `.claude-plugin/marketplace.json`.

A manifest error is one `PluginError` sentence naming the file, its line when the JSON is broken, and the
key; the caller skips that plugin (or marketplace) and goes on with the others.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tui.config.bounded_read import BoundedReadError, load_json_file

from .store import PluginError

MANIFEST = Path(".claude-plugin") / "plugin.json"
MARKETPLACE = Path(".claude-plugin") / "marketplace.json"
#: a plugin or marketplace name: no spaces (it becomes `/name:command` and part of MCP tool names)
NAME = re.compile(r"^[A-Za-z0-9][-A-Za-z0-9._]*$")
#: the component keys a manifest (or a non-strict marketplace entry) may give
COMPONENT_KEYS = ("commands", "agents", "skills", "hooks", "mcpServers", "lspServers")


@dataclass
class PluginManifest:
    """What plugin.json says: who the plugin is and where its parts are (beyond the default folders)."""

    name: str
    version: str = ""
    description: str = ""
    author: str = ""
    #: extra component paths or inline values, as written (COMPONENT_KEYS)
    components: dict[str, Any] = field(default_factory=dict)


@dataclass
class MarketplaceEntry:
    """One plugin a marketplace lists."""

    name: str
    #: "./path" (relative to the marketplace folder) or {"source": "github"|"git"|"url", …}
    source: str | dict[str, Any]
    description: str = ""
    version: str = ""
    category: str = ""
    #: False: the entry itself is the manifest (the folder needs no plugin.json)
    strict: bool = True
    raw: dict[str, Any] = field(default_factory=dict)


@dataclass
class Marketplace:
    """A marketplace.json: its name, owner and plugins, and the folder relative sources start from."""

    name: str
    owner: str
    plugins: list[MarketplaceEntry]
    root: Path
    description: str = ""
    #: one sentence per entry that could not be used (the others still count)
    problems: list[str] = field(default_factory=list)

    def entry(self, name: str) -> MarketplaceEntry | None:
        return next((p for p in self.plugins if p.name == name), None)


def load_json(path: Path, what: str) -> Any:
    """The parsed file; PluginError with `path:line:col` when it is broken, or a sentence when it is missing."""
    try:
        return load_json_file(path)
    except (FileNotFoundError, NotADirectoryError):
        raise PluginError(f"{what}: {path} does not exist.") from None
    except BoundedReadError as exc:
        raise PluginError(f"{what}: {exc}") from None
    except OSError as exc:
        raise PluginError(f"{what}: {path} cannot be read ({exc.strerror or exc}).") from None
    except json.JSONDecodeError as exc:
        raise PluginError(f"{what}: {path}:{exc.lineno}:{exc.colno} is not valid JSON ({exc.msg}).") from None


def _person(value: Any) -> str:
    """`author` / `owner` as a string or `{name, email}`."""
    if isinstance(value, dict):
        return str(value.get("name") or "")
    return value if isinstance(value, str) else ""


def _text(data: dict[str, Any], key: str, where: str) -> str:
    value = data.get(key, "")
    if not isinstance(value, str):
        raise PluginError(f"{where}: `{key}` must be a string.")
    return value


def parse_manifest(data: Any, where: str, fallback_name: str = "") -> PluginManifest:
    """A PluginManifest from parsed plugin.json (or a non-strict marketplace entry); PluginError naming the key."""
    if not isinstance(data, dict):
        raise PluginError(f"{where}: the top level must be a JSON object.")
    name = data.get("name", fallback_name)
    if not isinstance(name, str) or not NAME.match(name):
        raise PluginError(f'{where}: `name` must be a name without spaces such as "my-plugin", not {name!r}.')
    manifest = PluginManifest(
        name, _text(data, "version", where), _text(data, "description", where), _person(data.get("author"))
    )
    for key in COMPONENT_KEYS:
        if key in data:
            value = data[key]
            if not isinstance(value, (str, list, dict)):
                raise PluginError(f"{where}: `{key}` must be a path, a list of paths or an object.")
            if key == "agents" and (bad := _not_agent_files(value)):
                raise PluginError(
                    f'{where}: `agents` must list agent files such as "./agents/reviewer.md", not {bad!r} '
                    "(Claude Code 2.1.332 does not load such a plugin either)."
                )
            manifest.components[key] = value
    return manifest


def _not_agent_files(value: Any) -> str | None:
    """The first `agents` entry that is not a `.md` file path (a folder, say), or None."""
    for item in value if isinstance(value, list) else [value]:
        if not isinstance(item, str) or not item.endswith(".md"):
            return str(item)
    return None


def read_manifest(root: Path, entry: MarketplaceEntry | None = None) -> PluginManifest:
    """The manifest of the plugin in `root`: its plugin.json, or (non-strict, or no file) the marketplace entry."""
    path = root / MANIFEST
    folder_name = root.name.split("@", 1)[0]  # an installed copy's folder is `name@marketplace`
    if path.exists():  # a FIFO or device is named by load_json, not passed over
        manifest = parse_manifest(load_json(path, "plugin manifest"), str(path), folder_name)
        if entry is not None and not entry.strict:  # the entry adds its parts to the file's
            for key in COMPONENT_KEYS:
                if key in entry.raw and key not in manifest.components:
                    manifest.components[key] = entry.raw[key]
        return manifest
    if entry is not None:
        return parse_manifest({**entry.raw, "name": entry.name}, f"the marketplace entry of {entry.name}")
    return parse_manifest({}, str(path), folder_name)


def parse_marketplace(data: Any, path: Path, root: Path) -> Marketplace:
    """A Marketplace from parsed marketplace.json; PluginError when its name or plugin list is unusable."""
    where = str(path)
    if not isinstance(data, dict):
        raise PluginError(f"{where}: the top level must be a JSON object with `name` and `plugins`.")
    name = data.get("name")
    if not isinstance(name, str) or not NAME.match(name):
        raise PluginError(f"{where}: `name` must be a marketplace name without spaces, not {name!r}.")
    plugins = data.get("plugins")
    if not isinstance(plugins, list):
        raise PluginError(f"{where}: `plugins` must be a list of plugin entries.")
    metadata: dict[str, Any] = data["metadata"] if isinstance(data.get("metadata"), dict) else {}
    plugin_root = metadata.get("pluginRoot") if isinstance(metadata.get("pluginRoot"), str) else ""
    market = Marketplace(
        name,
        _person(data.get("owner")),
        [],
        root / plugin_root if plugin_root else root,
        str(data.get("description") or metadata.get("description") or ""),
    )
    for index, raw in enumerate(plugins):
        try:
            market.plugins.append(_entry(raw, f"{where}: plugins[{index}]"))
        except PluginError as exc:
            market.problems.append(f"{exc} That plugin is not listed.")
    return market


def _entry(raw: Any, where: str) -> MarketplaceEntry:
    if not isinstance(raw, dict):
        raise PluginError(f"{where} must be an object with `name` and `source`.")
    name = raw.get("name")
    if not isinstance(name, str) or not NAME.match(name):
        raise PluginError(f"{where}: `name` must be a plugin name without spaces, not {name!r}.")
    source = raw.get("source")
    if not (isinstance(source, str) and source) and not (
        isinstance(source, dict) and isinstance(source.get("source"), str)
    ):
        raise PluginError(
            f'{where} ({name}): `source` must be "./folder" or an object such as '
            '{"source": "github", "repo": "owner/repo"}.'
        )
    if isinstance(source, str) and (problem := source_problem(source)):
        raise PluginError(f"{where} ({name}): `source` {source} {problem}.")
    strict = raw.get("strict", True)
    return MarketplaceEntry(
        name,
        source,
        str(raw.get("description") or ""),
        str(raw.get("version") or ""),
        str(raw.get("category") or ""),
        strict is not False,
        raw,
    )


def source_problem(source: str) -> str | None:
    """Why a folder `source` of a marketplace entry may not be used (it must stay in the marketplace), else None."""
    if source.startswith(("/", "~")) or re.match(r"^[A-Za-z]:[\\/]", source):
        return "is an absolute path; a plugin folder must be inside the marketplace (./plugins/name)"
    if ".." in re.split(r"[\\/]", source):
        return "leaves the marketplace folder (..); a plugin folder must be inside it (./plugins/name)"
    return None


def source_folder(root: Path, source: str) -> Path:
    """The plugin folder `source` names in the marketplace `root`, links resolved; PluginError when it is not
    inside the marketplace (an absolute path, `..`, or a link that leads out)."""
    problem = source_problem(source)
    folder = (root / source).resolve()
    real_root = root.resolve()
    if problem is None and folder != real_root and real_root not in folder.parents:
        problem = f"leads to {folder}, outside the marketplace folder {real_root} (through a link)"
    if problem is not None:
        raise PluginError(f"its source {source} {problem}")
    return folder


def read_marketplace(root: Path, manifest_path: Path | None = None) -> Marketplace:
    """The marketplace whose `.claude-plugin/marketplace.json` (or `manifest_path`) is in `root`."""
    path = manifest_path or root / MARKETPLACE
    return parse_marketplace(load_json(path, "marketplace"), path, root)
