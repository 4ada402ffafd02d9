"""What a folder brings that trust switches on: hooks, MCP servers, allow rules, commands, agents …

Each kind of thing is one `TrustKind` in `KINDS`, with a collector that reads the folder's files and
returns one `TrustItem` per thing, naming the file it came from. The trust dialog, `/trust`, the screens
that say what was skipped and `-p`'s lines all read `folder_inventory()`. A new kind (plugins, say) is
one more entry in `KINDS`: its collector, its noun and what trusting does to it.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui.text.wording import plural, plural_noun, shown_path

if TYPE_CHECKING:
    from tui.config.settings import LoadedSettings


@dataclass(frozen=True)
class TrustItem:
    """One thing the folder brings: its kind (a `TrustKind.key`), one line naming it, and its file."""

    kind: str
    text: str
    path: Path
    #: a short name for a list on one line ("PreToolUse Bash", "docs"); the text when not given
    name: str = ""

    @property
    def short(self) -> str:
        return self.name or self.text


@dataclass(frozen=True)
class TrustKind:
    """A kind of thing trust gates: how to find it and how to word it."""

    key: str
    #: singular noun ("hook"); the plural adds an s unless `many` is given
    noun: str
    #: what trusting does to them, after the count: "9 hooks run on their events"
    effect: str
    #: the same for exactly one ("runs on its event")
    effect_one: str
    collect: Callable[[FolderScan], list[TrustItem]]
    many: str | None = None
    #: each item gets its own line in the dialog (False: the names on one line, for long lists)
    one_per_line: bool = True
    #: count items by their `name` (the plugins, not each hook and server a plugin brings)
    count_names: bool = False

    def size(self, items: list[TrustItem]) -> int:
        """How many things `items` are, as the heading counts them."""
        return len({i.name for i in items}) if self.count_names else len(items)

    def counted(self, count: int) -> str:
        """ "9 hooks", "1 MCP server"."""
        return plural(count, self.noun, self.many)

    def nouns(self, count: int) -> str:
        return plural_noun(count, self.noun, self.many)

    def effect_for(self, count: int) -> str:
        """What trusting does, agreeing with the count."""
        return self.effect_one if count == 1 else self.effect


@dataclass
class FolderInventory:
    """Everything a folder brings that trust gates, by kind, and whether it is trusted now."""

    project_dir: Path
    trusted: bool
    items: list[TrustItem] = field(default_factory=list)
    #: the folder's commands and skills in all (those without `!` lines work either way): (commands, skills)
    catalog_counts: tuple[int, int] = (0, 0)
    #: one sentence per file that trusting would not load either (a broken agent file …)
    problems: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.items)

    def by_kind(self) -> list[tuple[TrustKind, list[TrustItem]]]:
        """(kind, its items) for every kind that has any, in the order of KINDS."""
        return [(kind, found) for kind in KINDS if (found := [i for i in self.items if i.kind == kind.key])]

    def count(self) -> int:
        """How many things in all, as the headings count them."""
        return sum(kind.size(found) for kind, found in self.by_kind())

    def of(self, key: str) -> list[TrustItem]:
        """The items of one kind."""
        return [i for i in self.items if i.kind == key]

    def summary(self) -> str:
        """ "9 hooks, 2 MCP servers and 11 agents" ('' when nothing)."""
        parts = [kind.counted(kind.size(found)) for kind, found in self.by_kind()]
        return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + f" and {parts[-1]}" if parts else ""

    def shown(self, path: Path) -> str:
        """A file as the user reads it: relative to the folder when inside it, `~/…` in the home folder."""
        return shown_path(path, self.project_dir)


# --- the collectors -----------------------------------------------------------------------

#: the settings keys that choose a permission mode (a folder's permissive one waits for trust)
MODE_KEYS = ("defaultMode", "permission_mode")


class FolderScan:
    """What the collectors read: the folder's settings, and its commands and skills (read once, on first use)."""

    def __init__(self, loaded: LoadedSettings) -> None:
        self.loaded = loaded
        self.project_dir = loaded.project_dir
        #: sentences naming files a collector found it could not use
        self.problems: list[str] = []

    @cached_property
    def catalog(self) -> Any:
        """The commands and skills (tui.hooks.commands.Catalog), the user's included."""
        from tui.hooks.commands import load_catalog

        return load_catalog(self.project_dir)

    def project_commands(self) -> list[Any]:
        """The folder's own commands and skills ([] without reading anything when it has no such folder)."""
        from tui.hooks.commands import command_folders
        from tui.hooks.skills import skill_folders

        folders = [
            f
            for f, source in [*command_folders(self.project_dir), *skill_folders(self.project_dir)]
            if source == "project"
        ]
        if not any(f.is_dir() for f in folders):
            return []
        return [c for c in self.catalog.commands.values() if c.from_project]


def _hooks(scan: FolderScan) -> list[TrustItem]:
    if scan.loaded.hooks_disabled_by is not None:
        return []  # disableAllHooks: none would run trusted either
    found = dict.fromkeys((h.event, h.when, h.command, h.source) for h in scan.loaded.hooks if h.project)
    return [
        TrustItem("hooks", f"{event} {when}: {command}", Path(source), event if when == "*" else f"{event} {when}")
        for event, when, command, source in found
    ]


def _mcp_servers(scan: FolderScan) -> list[TrustItem]:
    path = scan.project_dir / ".mcp.json"
    if not path.exists():
        return []  # tui.mcp is imported only for a folder that has one
    from tui.mcp.sources import load_mcp_servers
    from tui.mcp.status import describe

    servers = load_mcp_servers(scan.project_dir, trusted=False).project
    return [TrustItem("mcp", f"{s.name}: {describe(s)}", path, s.name) for s in servers]


def _allow_rules(scan: FolderScan) -> list[TrustItem]:
    from tui.config.settings import untrusted_allow_rules

    items = [TrustItem("allow", f"allow {r.rule}", Path(r.source)) for r in untrusted_allow_rules(scan.loaded)]
    items += [
        TrustItem("allow", f"{key} {value}", path) for key, value, path in scan.loaded.withheld if key in MODE_KEYS
    ]
    return items


def _settings_commands(scan: FolderScan) -> list[TrustItem]:
    return [
        TrustItem("settings_commands", f"{key}: {value}", path)
        for key, value, path in scan.loaded.withheld
        if key not in MODE_KEYS and not key.startswith("providers.")
    ]


def _providers(scan: FolderScan) -> list[TrustItem]:
    """The folder's own provider profiles: their endpoint would receive your prompts and code."""
    return [
        TrustItem("providers", f"{key}: {value}", path)
        for key, value, path in scan.loaded.withheld
        if key.startswith("providers.")
    ]


def _agents(scan: FolderScan) -> list[TrustItem]:
    from tui.config.agent_files import project_agent_folders, read_folder

    items: list[TrustItem] = []
    for folder, source in project_agent_folders(scan.project_dir):
        definitions, problems = read_folder(folder, source, scan.project_dir)
        scan.problems += problems
        items += [TrustItem("agents", d.name, Path(d.path or folder)) for d in definitions]
    return items


def _shell_lines(scan: FolderScan) -> list[TrustItem]:
    from tui.hooks.expand import shell_commands

    items = []
    for command in scan.project_commands():
        if lines := shell_commands(command.body):
            items.append(
                TrustItem(
                    "shell_lines",
                    f"/{command.name}: " + ", ".join(f"!`{c}`" for c in lines),
                    command.path,
                    f"/{command.name}",
                )
            )
    return items


def _allowed_tools(scan: FolderScan) -> list[TrustItem]:
    return [
        TrustItem("allowed_tools", f"/{c.name}: {', '.join(c.allowed_tools)}", c.path, f"/{c.name}")
        for c in scan.project_commands()
        if c.allowed_tools
    ]


def _plugins(scan: FolderScan) -> list[TrustItem]:
    if not scan.loaded.plugins_seen:
        return []  # tui.plugins is imported only for a folder whose settings name a plugin
    from tui.plugins.trust_items import folder_plugin_items

    items, problems = folder_plugin_items(scan.loaded)
    scan.problems += problems
    return [TrustItem("plugins", text, path, name) for text, path, name in items]


#: every kind of thing trust gates, in the order the dialog lists them
KINDS: list[TrustKind] = [
    TrustKind("hooks", "hook", "run on their events", "runs on its event", _hooks),
    TrustKind(
        "plugins",
        "plugin",
        "run their hooks and MCP servers and load their agents (installed if need be)",
        "runs its hooks and MCP servers and loads its agents (installed if need be)",
        _plugins,
        count_names=True,
    ),
    TrustKind("mcp", "MCP server", "may start (you choose which next)", "may start (you say yes next)", _mcp_servers),
    TrustKind("allow", "allow rule", "allow calls without asking", "allows calls without asking", _allow_rules),
    TrustKind("settings_commands", "settings command", "run", "runs", _settings_commands),
    TrustKind(
        "providers",
        "provider profile",
        "receive your prompts and code at their base_url",
        "receives your prompts and code at its base_url",
        _providers,
    ),
    TrustKind(
        "agents",
        "agent",
        "become agent types the Agent tool offers",
        "becomes an agent type the Agent tool offers",
        _agents,
        one_per_line=False,
    ),
    TrustKind(
        "shell_lines",
        "command or skill with `!` lines",
        "run them before the prompt is sent",
        "runs them before the prompt is sent",
        _shell_lines,
        many="commands and skills with `!` lines",
    ),
    TrustKind(
        "allowed_tools",
        "command or skill with allowed-tools",
        "pre-approve those tools for their turn",
        "pre-approves those tools for its turn",
        _allowed_tools,
        many="commands and skills with allowed-tools",
    ),
]


def folder_inventory(project_dir: Path, loaded: LoadedSettings | None = None) -> FolderInventory:
    """What `project_dir` brings that trust gates (read from its files now), and whether it is trusted."""
    from tui.config.settings import load_settings

    project_dir = Path(os.path.abspath(project_dir))
    if loaded is None:
        loaded = load_settings(project_dir)
    inventory = FolderInventory(project_dir, loaded.trusted)
    scan = FolderScan(loaded)
    for kind in KINDS:
        inventory.items += kind.collect(scan)
    mine = scan.project_commands()
    skills = sum(c.kind == "skill" for c in mine)
    inventory.catalog_counts = (len(mine) - skills, skills)
    inventory.problems = scan.problems
    return inventory
