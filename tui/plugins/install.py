"""Installing, enabling, disabling and uninstalling plugins (`plugin@marketplace`).

Installing copies the plugin's folder (or clones its git source) into `cache/<plugin>@<marketplace>/`,
records it in installed_plugins.json and turns it on in the settings (`enabled_plugins`). Enabling and
disabling write `enabled_plugins` in one settings file: the user's, unless the folder's settings decide
the plugin (then the folder's local, uncommitted file, which wins over them).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tui.config.paths import local_settings_file, project_settings_file, user_settings_file
from tui.config.rule_files import SettingsWriteError, read_settings_file, write_settings_file

from . import sources
from .manifest import COMPONENT_KEYS, MANIFEST, Marketplace, MarketplaceEntry, load_json, read_manifest, source_folder
from .marketplaces import add_marketplace, load_marketplace, settings_source
from .store import (
    InstalledPlugin,
    PluginError,
    now,
    plugin_cache_dir,
    read_installed,
    read_known,
    split_id,
    write_installed,
    write_json,
)

SCOPES = ("user", "project", "local")
#: the TOML key agent-tui writes (Claude Code's `enabledPlugins` is read too)
ENABLED_KEY = "enabled_plugins"


@dataclass
class Installed:
    """What an install did: the record, the marketplace it came from, and the marketplace it had to add."""

    record: InstalledPlugin
    entry: MarketplaceEntry
    added_marketplace: str | None = None


def find_marketplace(name: str, named: Iterable[Any] = ()) -> tuple[Marketplace, str | None]:
    """The marketplace called `name`: an added one, or one a settings file names (added now); (it, name if added now)."""
    known = read_known().get(name)
    if known is not None:
        return load_marketplace(known), None
    entry = next((e for e in named if e.name == name), None)
    if entry is None:
        raise PluginError(
            f"No marketplace called {name} is added: add it first with "
            f"agent-tui plugin marketplace add SOURCE (agent-tui plugin marketplace list shows them)."
        )
    return add_marketplace(settings_source(entry), expected_name=name), name


def install(plugin_id: str, *, named: Iterable[Any] = (), by_user: bool = True) -> Installed:
    """Install (or reinstall) `plugin@marketplace`; PluginError with one sentence when it cannot be."""
    name, market_name = split_id(plugin_id)
    market, added = find_marketplace(market_name, named)
    entry = market.entry(name)
    if entry is None:
        listed = ", ".join(p.name for p in market.plugins) or "none"
        raise PluginError(f"The marketplace {market_name} has no plugin called {name} (it lists: {listed}).")
    dest = plugin_cache_dir(plugin_id)
    sha = None
    if isinstance(entry.source, str):
        try:
            folder = source_folder(market.root, entry.source)  # never outside the marketplace, links included
        except PluginError as exc:
            raise PluginError(f"The plugin {plugin_id} cannot be installed: {exc}.") from None
        if not folder.is_dir():
            raise PluginError(
                f"The plugin {plugin_id} cannot be installed: its folder {entry.source} does not exist "
                f"in the marketplace {market_name} ({market.root})."
            )
        _check_manifest(plugin_id, folder, entry)  # a broken manifest stops the install before anything is copied
        sources.copy_folder(folder, dest)
    else:
        url = sources.git_url(entry.source)
        if url is None:
            raise PluginError(
                f"The plugin {plugin_id} comes from a {entry.source.get('source')} source, which "
                "agent-tui does not install (folders and git sources only)."
            )
        sha = sources.clone(url, dest, entry.source.get("ref"))
        try:
            _check_manifest(plugin_id, dest, entry)
        except PluginError:
            shutil.rmtree(dest, ignore_errors=True)
            raise
    if not entry.strict:  # the entry is (part of) the manifest: kept with the copy, which is read alone later
        _keep_entry_manifest(dest, entry)
    manifest = read_manifest(dest, entry)
    installed = read_installed()
    old = installed.get(plugin_id)
    record = InstalledPlugin(
        plugin_id,
        manifest.version or entry.version or (sha or "")[:12] or "unknown",
        str(dest),
        old.installed_at if old else now(),
        now(),
        sha,
        by_user or bool(old and old.user_installed),
    )
    installed[plugin_id] = record
    write_installed(installed)
    return Installed(record, entry, added)


def _check_manifest(plugin_id: str, folder: Path, entry: MarketplaceEntry) -> None:
    try:
        read_manifest(folder, entry)
    except PluginError as exc:
        raise PluginError(f"The plugin {plugin_id} cannot be installed: {exc}") from None


def _keep_entry_manifest(folder: Path, entry: MarketplaceEntry) -> None:
    """Write the marketplace entry's fields into the copy's plugin.json (its own fields win)."""
    path = folder / MANIFEST
    data = load_json(path, "plugin manifest") if path.is_file() else {}
    if not isinstance(data, dict):
        return
    for key in ("name", "version", "description", "author", *COMPONENT_KEYS):
        if key in entry.raw and key not in data:
            data[key] = entry.raw[key]
    write_json(path, data)


def uninstall(plugin_id: str) -> InstalledPlugin:
    """Remove the plugin's copy and record, and its entry in the user settings; PluginError when not installed."""
    split_id(plugin_id)
    installed = read_installed()
    record = installed.pop(plugin_id, None)
    if record is None:
        raise PluginError(f"The plugin {plugin_id} is not installed (agent-tui plugin list shows what is).")
    cache = plugin_cache_dir(plugin_id)
    if Path(record.install_path) == cache:
        shutil.rmtree(cache, ignore_errors=True)
    write_installed(installed)
    _write_choice(user_settings_file(), plugin_id, None)
    return record


def scope_file(scope: str, project_dir: Path) -> Path:
    """The settings file of a scope: user, project (`.agent-tui/settings.toml`) or local (`settings.local.toml`)."""
    if scope == "user":
        return user_settings_file()
    if scope == "project":
        return project_settings_file(project_dir)
    if scope == "local":
        return local_settings_file(project_dir)
    raise PluginError(f"`{scope}` is not a scope: use user, project or local.")


def set_enabled(plugin_id: str, enabled: bool, project_dir: Path, loaded: Any, scope: str | None = None) -> Path:
    """Turn a plugin on or off in one settings file; returns that file.

    Without a scope: the user settings, unless the folder's settings decide it now (then the folder's local file).
    """
    split_id(plugin_id)
    if enabled and plugin_id not in read_installed():
        raise PluginError(f"The plugin {plugin_id} is not installed: agent-tui plugin install {plugin_id}.")
    if scope is None:
        deciding = [c for c in loaded.plugin_choices if c.plugin_id == plugin_id]
        turned_off = [c for c in deciding if not c.folder and not c.enabled]
        if enabled and turned_off:  # the user's own "off" is what keeps it off: change it where it was said
            _write_choice(user_settings_file(), plugin_id, True)
        scope = "local" if deciding and deciding[-1].folder else "user"
    path = scope_file(scope, project_dir)
    _write_choice(path, plugin_id, enabled)
    return path


def _write_choice(path: Path, plugin_id: str, enabled: bool | None) -> None:
    """Set (or, with None, drop) `enabled_plugins."<id>"` in a settings file, keeping every other key."""
    try:
        data = read_settings_file(path)
    except SettingsWriteError as exc:
        raise PluginError(str(exc)) from None
    table = data.get(ENABLED_KEY)
    if table is not None and not isinstance(table, dict):
        raise PluginError(f"{path}: `{ENABLED_KEY}` is not a table, so it cannot be updated; fix it first.")
    table = dict(table or {})
    if enabled is None:
        if plugin_id not in table:
            return
        table.pop(plugin_id)
    else:
        table[plugin_id] = enabled
    if table:
        data[ENABLED_KEY] = table
    else:
        data.pop(ENABLED_KEY, None)
    try:
        write_settings_file(path, data)
    except (OSError, SettingsWriteError) as exc:
        raise PluginError(f"{path} could not be written: {exc}.") from None
