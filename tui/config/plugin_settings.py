"""The plugin keys of settings files: which plugins are on or off, and the marketplaces a team names.

`enabled_plugins` (Claude Code's `enabledPlugins`) is a table of `"name@marketplace" = true|false`;
`extra_known_marketplaces` (`extraKnownMarketplaces`) names marketplaces by name with their `source`
(`{source = "directory", path = …}`, `{source = "git", url = …}`, `{source = "github", repo = …}`).
This module only reads and checks the values; `tui/plugins/` acts on them, and is imported only when
some settings file holds one of these keys.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tui.config.lean_dataclass import lean_dataclass

#: the keys as agent-tui's TOML spells them and as Claude Code's JSON does
ENABLED_KEYS = ("enabled_plugins", "enabledPlugins")
MARKETPLACE_KEYS = ("extra_known_marketplaces", "extraKnownMarketplaces")
PLUGIN_KEYS = (*ENABLED_KEYS, *MARKETPLACE_KEYS)
#: Claude Code's plugin id: `plugin@marketplace`
PLUGIN_ID = re.compile(r"^[A-Za-z0-9][-A-Za-z0-9._]*@[A-Za-z0-9][-A-Za-z0-9._]*$")
SOURCE_KINDS = ("directory", "git", "github", "file", "url")


@lean_dataclass(frozen=True)
class PluginChoice:
    """`"name@marketplace" = true|false` in one settings file."""

    plugin_id: str
    enabled: bool
    path: Path
    #: the file lives in the project folder (its choice to run code waits for trust)
    folder: bool


@lean_dataclass(frozen=True)
class MarketplaceEntry:
    """One marketplace a settings file names (`extra_known_marketplaces.NAME.source`)."""

    name: str
    source: dict[str, Any]
    path: Path
    folder: bool
    #: the folder a relative `path` source is read from (the project, or the user config folder)
    base_dir: Path


def read_enabled(value: Any, path: Path, folder: bool) -> tuple[list[PluginChoice], list[str]]:
    """The choices of one `enabled_plugins` value, and a sentence per entry that is not `id = true|false`."""
    if not isinstance(value, dict):
        return [], ['expected a table of "plugin@marketplace" = true or false; ignored.']
    choices, problems = [], []
    for plugin_id, on in value.items():
        if not PLUGIN_ID.match(str(plugin_id)):
            problems.append(f'`{plugin_id}` is not a plugin id (write "plugin@marketplace"); ignored.')
        elif not isinstance(on, bool):
            problems.append(f"`{plugin_id}` must be true or false; ignored.")
        else:
            choices.append(PluginChoice(str(plugin_id), on, path, folder))
    return choices, problems


def read_marketplaces(value: Any, path: Path, folder: bool, base_dir: Path) -> tuple[list[MarketplaceEntry], list[str]]:
    """The entries of one `extra_known_marketplaces` value, and a sentence per entry that cannot be used."""
    if not isinstance(value, dict):
        return [], ["expected a table of marketplaces by name, each with a `source`; ignored."]
    entries, problems = [], []
    for name, entry in value.items():
        source = entry.get("source") if isinstance(entry, dict) else None
        kind = source.get("source") if isinstance(source, dict) else None
        if not re.fullmatch(r"[A-Za-z0-9][-A-Za-z0-9._]*", str(name)):
            problems.append(f"the marketplace name `{name}` may use only letters, digits, `-`, `_` and `.`; ignored.")
        elif kind not in SOURCE_KINDS:
            problems.append(
                f'`{name}` needs `source = {{source = "directory", path = "…"}}` (or git with url, '
                f"github with repo); ignored."
            )
        else:
            entries.append(MarketplaceEntry(str(name), dict(source), path, folder, base_dir))  # type: ignore[arg-type]
    return entries, problems
