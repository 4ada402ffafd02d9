"""What the trust question says about the plugins a folder's settings enable: each plugin, each of its hooks
(event, matcher, command), each MCP server (its command or URL) and each command with `!` lines.

A plugin the user installed themselves is theirs and not listed. One not installed yet is read from its
marketplace's folder when that is on disk; from a git marketplace that is not cloned yet, it is named
with where it would come from. A plugin whose marketplace nobody names cannot be installed by trusting,
so it is not listed (the session says why once).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from . import sources
from .active import effective_choices, held_by_user
from .components import ROOT_VARIABLE, read_parts
from .manifest import read_manifest
from .marketplaces import fetch, load_marketplace, settings_source
from .store import PluginError, read_installed, read_known, split_id

#: (text, settings file that enables it, plugin id)
Item = tuple[str, Path, str]


def folder_plugin_items(loaded: Any) -> tuple[list[Item], list[str]]:
    """The lines for every plugin the folder's settings enable and only trust would let run; and problems."""
    try:
        installed = read_installed()
    except PluginError as exc:
        return [], [str(exc)]
    items: list[Item] = []
    problems: list[str] = []
    for folder_choice, _ in held_by_user(loaded):  # asked for, but the user's "off" stands, trusted or not
        plugin_id = folder_choice.plugin_id
        note = f"{plugin_id}: asked for, but you turned it off, so it stays off (agent-tui plugin enable turns it on)"
        items.append((note, folder_choice.path, plugin_id))
    for plugin_id, choice in effective_choices(loaded).items():
        if not choice.enabled or not choice.folder:
            continue
        record = installed.get(plugin_id)
        if record is not None and record.user_installed:
            continue  # installed by the user: it runs whether or not the folder is trusted
        try:
            root, note = (Path(record.install_path), "") if record else _preview(plugin_id, loaded)
        except PluginError as exc:
            problems.append(f"Plugin {plugin_id}: {exc}")
            continue
        if root is None:
            if note:
                items.append((f"{plugin_id}: {note}", choice.path, plugin_id))
            continue
        if not root.is_dir():
            problems.append(f"Plugin {plugin_id} would not load: its folder {root} is missing.")
            continue
        try:
            parts = read_parts(plugin_id, root, read_manifest(root), gated=True)
        except PluginError as exc:
            problems.append(f"Plugin {plugin_id} would not load: {exc}")
            continue
        problems += parts.problems
        items += [(text, choice.path, plugin_id) for text in _lines(plugin_id, root, parts)]
    return items, problems


def _preview(plugin_id: str, loaded: Any) -> tuple[Path | None, str]:
    """(folder to read the plugin from, or None with a note) for a plugin that is not installed."""
    name, market_name = split_id(plugin_id)
    known = read_known().get(market_name)
    named = next((e for e in loaded.marketplaces if e.name == market_name), None)
    if known is not None:
        market = load_marketplace(known)
    elif named is not None and named.source.get("source") in ("directory", "file"):
        market = fetch(settings_source(named))[0]
    elif named is not None:
        return None, (
            f"from the marketplace {market_name} ({sources.describe(named.source)}), not added yet: "
            "trusting adds it and installs the plugin, then its hooks and servers run"
        )
    else:
        return None, ""
    entry = market.entry(name)
    if entry is None:
        raise PluginError(f"the marketplace {market_name} lists no plugin called {name}.")
    if isinstance(entry.source, str):
        from .manifest import source_folder

        return source_folder(market.root, entry.source), ""
    return None, (
        f"from {sources.describe(entry.source)}, not installed yet: trusting installs it, "
        "then its hooks and servers run"
    )


def _lines(plugin_id: str, root: Path, parts: Any) -> list[str]:
    """The plugin's summary line, then one line per hook, MCP server and command with `!` lines."""
    from tui.hooks.expand import shell_commands

    lines = [f"{plugin_id}: {parts.counts()}"]
    for hook in parts.hooks:
        command = hook.command.replace(str(root), ROOT_VARIABLE)
        lines.append(f"{plugin_id} hook {hook.event} {hook.when}: {command}")
    if parts.mcp_servers:
        from tui.mcp.status import describe

        lines += [
            f"{plugin_id} MCP server {s.name}: {describe(s).replace(str(root), ROOT_VARIABLE)}"
            for s in parts.mcp_servers
        ]
    for command in parts.commands:
        if found := shell_commands(command.body):
            lines.append(f"{plugin_id} /{command.name}: " + ", ".join(f"!`{c}`" for c in found))
    return lines
