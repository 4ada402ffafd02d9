"""Which plugins a session loads, and what they bring to its commands, agents, hooks and MCP servers.

A plugin loads when the settings enable it (the last file that names it wins: user, then the folder's
committed files, then its local ones) and it is installed. One that only the folder's settings enable,
and that the user did not install, is *gated*: its commands load (their `!` lines wait for trust), its
agents, hooks and MCP servers only count in a trusted folder, as the folder's own do. In a trusted
folder a plugin the folder enables is installed on first use. Every problem is one sentence; the other
plugins and the session go on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tui.text.wording import shown_path

from .components import PluginParts, read_parts
from .manifest import PluginManifest, read_manifest
from .store import InstalledPlugin, PluginError, read_installed, split_id


@dataclass
class LoadedPlugin:
    """One enabled, installed plugin and its parts."""

    plugin_id: str
    manifest: PluginManifest
    record: InstalledPlugin
    parts: PluginParts
    #: only the folder's settings enable it and the user did not install it: its code waits for trust
    gated: bool
    #: the settings file whose choice enabled it
    enabled_in: Path

    @property
    def root(self) -> Path:
        return Path(self.record.install_path)


@dataclass
class ActivePlugins:
    """The plugins of a session: loaded ones, one sentence per problem, and the short names of their commands."""

    project_dir: Path
    plugins: list[LoadedPlugin] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    #: `deploy` -> `tools:deploy` for every command name only one plugin has
    aliases: dict[str, str] = field(default_factory=dict)
    #: plugins installed while resolving (enabled by a trusted folder's settings), for a notice
    installed_now: list[str] = field(default_factory=list)

    def notices(self) -> list[str]:
        """One sentence per plugin installed while resolving and per problem."""
        installed = [f"Installed the plugin {p}, which this folder's settings enable." for p in self.installed_now]
        return installed + self.problems

    def get(self, plugin_id: str) -> LoadedPlugin | None:
        return next((p for p in self.plugins if p.plugin_id == plugin_id), None)

    def commands(self) -> list[Any]:
        return [c for p in self.plugins for c in p.parts.commands]

    def agents(self, trusted: bool) -> list[Any]:
        """The agent types of the plugins whose code may run (a gated plugin's only in a trusted folder)."""
        return [a for p in self.plugins if trusted or not p.gated for a in p.parts.agents]

    def hooks(self) -> list[Any]:
        """Every plugin hook (a gated plugin's marked `project`, so HookConfig runs it only when trusted)."""
        return [h for p in self.plugins for h in p.parts.hooks]

    def lsp_servers(self, trusted: bool) -> list[tuple[str, dict[str, Any], str]]:
        """The plugins' language servers that may start (a gated plugin's only in a trusted folder)."""
        return [s for p in self.plugins if trusted or not p.gated for s in p.parts.lsp_servers]

    def mcp_servers(self, trusted: bool) -> tuple[list[Any], dict[str, str]]:
        """(servers that may start, {name: why held back}) of every plugin."""
        servers, held = [], {}
        for plugin in self.plugins:
            for server in plugin.parts.mcp_servers:
                if plugin.gated and not trusted:
                    held[server.name] = "untrusted folder"
                else:
                    servers.append(server)
        return servers, held


def effective_choices(loaded: Any) -> dict[str, Any]:
    """`plugin_id` -> the PluginChoice that decides it: the last file that names it, except that a folder's
    `true` never turns back on a plugin the user turned off (user settings, --settings): that `false` stands."""
    choices: dict[str, Any] = {}
    for choice in loaded.plugin_choices:
        old = choices.get(choice.plugin_id)
        if choice.folder and choice.enabled and old is not None and not old.folder and not old.enabled:
            continue  # a folder may only ask (held_by_user names it); the user's choice stands
        choices[choice.plugin_id] = choice
    return choices


def held_by_user(loaded: Any) -> list[tuple[Any, Any]]:
    """(the folder's choice, the user's) for each plugin a folder enables that the user turned off: it stays off."""
    held: list[tuple[Any, Any]] = []
    deciding = effective_choices(loaded)
    for choice in loaded.plugin_choices:
        user = deciding.get(choice.plugin_id)
        if choice.folder and choice.enabled and user is not None and not user.folder and not user.enabled:
            held.append((choice, user))
    return held


def held_sentence(folder_choice: Any, user_choice: Any, project_dir: Path) -> str:
    """One sentence: the folder asks for a plugin the user turned off, which stays off."""
    plugin_id = folder_choice.plugin_id
    return (
        f"Plugin {plugin_id} stays off: you turned it off in {shown_path(user_choice.path, project_dir)}, and "
        f"{shown_path(folder_choice.path, project_dir)} ({_key(folder_choice.path)}) asking for it does not turn it "
        f"back on; agent-tui plugin enable {plugin_id} does."
    )


def resolve(project_dir: Path, loaded: Any, *, install_missing: bool = True) -> ActivePlugins:
    """The plugins `loaded` (tui.config.settings.LoadedSettings) enables for `project_dir`, read from their folders."""
    active = ActivePlugins(Path(project_dir))
    try:
        installed = read_installed()
    except PluginError as exc:
        active.problems.append(f"No plugin was loaded: {exc}")
        return active
    names: dict[str, str] = {}
    active.problems += [held_sentence(f, u, active.project_dir) for f, u in held_by_user(loaded)]
    for plugin_id, choice in effective_choices(loaded).items():
        if not choice.enabled:
            continue
        record = installed.get(plugin_id)
        if record is None:
            record = _missing(active, plugin_id, choice, loaded, install_missing)
            if record is None:
                continue
        plugin = _load(active, plugin_id, record, choice)
        if plugin is None:
            continue
        if plugin.manifest.name in names:
            active.problems.append(
                f"Plugin {plugin_id} was not loaded: plugin {names[plugin.manifest.name]} has the "
                f"same name, {plugin.manifest.name}, so their commands would clash; disable one."
            )
            continue
        names[plugin.manifest.name] = plugin_id
        active.plugins.append(plugin)
        active.problems += plugin.parts.problems
    _short_names(active)
    return active


def _missing(
    active: ActivePlugins, plugin_id: str, choice: Any, loaded: Any, install_missing: bool
) -> InstalledPlugin | None:
    """An enabled plugin that is not installed: installed now for a trusted folder that enables it, else a sentence."""
    where = f"{shown_path(choice.path, active.project_dir)} ({_key(choice.path)})"
    if choice.folder and not (loaded.trusted and install_missing):
        market = split_id(plugin_id)[1]
        if loaded.trusted or market in _known_names() or any(m.name == market for m in loaded.marketplaces):
            return None  # the trust question names it; trusting installs it
        active.problems.append(
            f"Plugin {plugin_id}, which {where} enables, cannot be installed: no marketplace "
            f"called {market} is added or named in extraKnownMarketplaces."
        )
        return None
    if choice.folder:
        from .install import install

        try:
            done = install(plugin_id, named=loaded.marketplaces, by_user=False)
        except PluginError as exc:
            active.problems.append(f"Plugin {plugin_id}, which {where} enables, could not be installed: {exc}")
            return None
        active.installed_now.append(plugin_id)
        return done.record
    active.problems.append(
        f"Plugin {plugin_id} is enabled in {where} but not installed: agent-tui plugin install {plugin_id} installs it."
    )
    return None


def _known_names() -> set[str]:
    from .store import read_known

    try:
        return set(read_known())
    except PluginError:
        return set()


def _key(path: Path) -> str:
    """The settings key as that file spells it."""
    return "enabledPlugins" if path.suffix == ".json" else "enabled_plugins"


def _load(active: ActivePlugins, plugin_id: str, record: InstalledPlugin, choice: Any) -> LoadedPlugin | None:
    root = Path(record.install_path)
    if not root.is_dir():
        active.problems.append(
            f"Plugin {plugin_id} was not loaded: its folder {root} is missing; reinstall it with "
            f"agent-tui plugin install {plugin_id}."
        )
        return None
    try:
        split_id(plugin_id)
        manifest = read_manifest(root)
    except PluginError as exc:
        active.problems.append(f"Plugin {plugin_id} was not loaded: {exc}")
        return None
    gated = choice.folder and not record.user_installed
    parts = read_parts(plugin_id, root, manifest, gated=gated)
    return LoadedPlugin(plugin_id, manifest, record, parts, gated, choice.path)


def _short_names(active: ActivePlugins) -> None:
    """A command's short name works when one plugin alone has it; two or more get one sentence."""
    owners: dict[str, list[tuple[str, str]]] = {}
    for plugin in active.plugins:
        for command in plugin.parts.commands:
            short = command.name.partition(":")[2]
            owners.setdefault(short, []).append((plugin.plugin_id, command.name))
    for short, found in owners.items():
        if len(found) == 1:
            active.aliases[short] = found[0][1]
            continue
        plugins = " and ".join(", ".join(p for p, _ in found).rsplit(", ", 1))
        typed = " or ".join(", ".join(f"/{n}" for _, n in found).rsplit(", ", 1))
        both = "both" if len(found) == 2 else "all"
        active.problems.append(f"Plugins {plugins} {both} have a command /{short}: type {typed}.")
