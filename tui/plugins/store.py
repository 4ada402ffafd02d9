"""Where plugins live on disk, and the two small JSON records that say what was added and installed.

Under the user's data folder (`~/.local/share/agent-tui/plugins/`), in Claude Code's layout:
`known_marketplaces.json` (name -> source, where it is, when it was read), `installed_plugins.json`
(`plugin@marketplace` -> version, folder, when), `marketplaces/<name>/` (clones of git marketplaces)
and `cache/<plugin>@<marketplace>/` (each installed plugin's own copy). Writes are atomic.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tui.config.bounded_read import BoundedReadError, load_json_file
from tui.config.paths import user_data_dir

#: installed_plugins.json's schema version (Claude Code's first format)
INSTALLED_VERSION = 1


class PluginError(Exception):
    """Something about a plugin or marketplace cannot be done or used; the message is one sentence."""


def plugins_dir() -> Path:
    return user_data_dir() / "plugins"


def known_file() -> Path:
    return plugins_dir() / "known_marketplaces.json"


def installed_file() -> Path:
    return plugins_dir() / "installed_plugins.json"


def marketplace_clone_dir(name: str) -> Path:
    return plugins_dir() / "marketplaces" / name


def plugin_cache_dir(plugin_id: str) -> Path:
    return plugins_dir() / "cache" / plugin_id


def split_id(plugin_id: str) -> tuple[str, str]:
    """("name", "marketplace") of `name@marketplace`; PluginError for anything else."""
    name, at, market = plugin_id.rpartition("@")
    if not at or not name or not market:
        raise PluginError(
            f"`{plugin_id}` is not a plugin id: write NAME@MARKETPLACE (agent-tui plugin list shows them)."
        )
    return name, market


def now() -> str:
    """An ISO 8601 UTC timestamp, as Claude Code's records hold."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def read_json(path: Path) -> dict[str, Any]:
    """A record file's content ({} when missing); PluginError naming the file when it does not parse."""
    try:
        data = load_json_file(path)
    except (FileNotFoundError, NotADirectoryError):
        return {}
    except BoundedReadError as exc:
        raise PluginError(str(exc)) from None
    except json.JSONDecodeError as exc:
        raise PluginError(f"{path} is not valid JSON ({exc}); fix or delete it.") from None
    if not isinstance(data, dict):
        raise PluginError(f"{path} must hold a JSON object; fix or delete it.")
    return data


def write_json(path: Path, data: dict[str, Any]) -> None:
    """Write `data` to `path` atomically (a temporary file, then a rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(data, out, indent=2)
            out.write("\n")
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


@dataclass
class KnownMarketplace:
    """A marketplace the user added: its source and the folder its marketplace.json is read from."""

    name: str
    source: dict[str, Any]
    install_location: str
    last_updated: str = field(default_factory=now)


@dataclass
class InstalledPlugin:
    """One installed plugin: its folder, version and whether the user installed it (not only a folder's trust)."""

    plugin_id: str
    version: str
    install_path: str
    installed_at: str = field(default_factory=now)
    last_updated: str = field(default_factory=now)
    git_commit_sha: str | None = None
    #: installed by the user (`plugin install`, /plugin); False when trusting a folder that enables it did it
    user_installed: bool = True


def read_known() -> dict[str, KnownMarketplace]:
    """Every marketplace in known_marketplaces.json; PluginError when the file is broken."""
    found = {}
    for name, entry in read_json(known_file()).items():
        if isinstance(entry, dict) and isinstance(entry.get("source"), dict):
            found[name] = KnownMarketplace(
                name, entry["source"], str(entry.get("installLocation", "")), str(entry.get("lastUpdated", ""))
            )
    return found


def write_known(known: dict[str, KnownMarketplace]) -> None:
    write_json(
        known_file(),
        {
            m.name: {"source": m.source, "installLocation": m.install_location, "lastUpdated": m.last_updated}
            for m in known.values()
        },
    )


def read_installed() -> dict[str, InstalledPlugin]:
    """Every plugin in installed_plugins.json; PluginError when the file is broken."""
    plugins = read_json(installed_file()).get("plugins", {})
    found = {}
    for plugin_id, entry in plugins.items() if isinstance(plugins, dict) else ():
        if isinstance(entry, dict) and isinstance(entry.get("installPath"), str):
            found[plugin_id] = InstalledPlugin(
                plugin_id,
                str(entry.get("version", "")),
                entry["installPath"],
                str(entry.get("installedAt", "")),
                str(entry.get("lastUpdated", "")),
                entry.get("gitCommitSha"),
                entry.get("userInstalled", True) is True,
            )
    return found


def write_installed(installed: dict[str, InstalledPlugin]) -> None:
    plugins = {}
    for plugin in installed.values():
        entry = {
            "version": plugin.version,
            "installedAt": plugin.installed_at,
            "lastUpdated": plugin.last_updated,
            "installPath": plugin.install_path,
            "userInstalled": plugin.user_installed,
        }
        if plugin.git_commit_sha:
            entry["gitCommitSha"] = plugin.git_commit_sha
        plugins[plugin.plugin_id] = entry
    write_json(installed_file(), {"version": INSTALLED_VERSION, "plugins": plugins})
