"""`agent-tui plugin install|uninstall|enable|disable|list` and `agent-tui plugin marketplace add|list|remove|update`.

Worded as `claude plugin …`: successes on stdout, one sentence per error on stderr with exit code 1.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from tui.text.sanitize import visible
from tui.text.wording import plural

from . import sources
from .store import PluginError


def _say(text: str) -> None:
    print(visible(text))


def _warn(text: str) -> None:
    print(visible(f"agent-tui: {text}"), file=sys.stderr)


class _Parser(argparse.ArgumentParser):
    """argparse whose usage errors are one PluginError sentence (exit 1, as Claude Code's commander)."""

    def error(self, message: str) -> NoReturn:
        raise PluginError(f"error: {message}")


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="agent-tui plugin", description="Install and manage Claude Code plugins and their marketplaces.")
    p.add_argument("--cwd", type=Path, help="the project folder (default: the current directory)")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    scope_help = "settings file to write: user (default), project (.agent-tui/settings.toml) or local"
    for name, aliases, what in (
        ("install", ["i"], "install a plugin (NAME@MARKETPLACE) and turn it on"),
        ("enable", [], "turn an installed plugin on"),
        ("disable", [], "turn a plugin off"),
    ):
        command = sub.add_parser(name, aliases=aliases, help=what)
        command.add_argument("plugin", metavar="NAME@MARKETPLACE")
        command.add_argument("-s", "--scope", choices=("user", "project", "local"), help=scope_help)
    uninstall = sub.add_parser("uninstall", aliases=["remove", "rm"], help="remove an installed plugin")
    uninstall.add_argument("plugin", metavar="NAME@MARKETPLACE")
    sub.add_parser("list", help="list installed and enabled plugins")
    market = sub.add_parser("marketplace", help="add, list, remove or update marketplaces")
    msub = market.add_subparsers(dest="market_command", metavar="COMMAND", parser_class=_Parser)
    add = msub.add_parser("add", help="add a marketplace from a folder, a git URL or a GitHub owner/repo")
    add.add_argument("source")
    msub.add_parser("list", help="list the marketplaces and their plugins")
    remove = msub.add_parser("remove", aliases=["rm"], help="remove a marketplace and uninstall its plugins")
    remove.add_argument("name")
    update = msub.add_parser("update", help="pull git marketplaces again (all without a name)")
    update.add_argument("name", nargs="?")
    return p


def main(argv: Sequence[str]) -> int:
    """Run one `agent-tui plugin` command; returns the exit code."""
    parser = build_parser()
    try:
        args = parser.parse_args(list(argv))
        project_dir = (args.cwd or Path.cwd()).resolve()
        if args.command is None:
            parser.print_help()
            return 0
        if args.command == "marketplace":
            if args.market_command is None:
                raise PluginError("error: marketplace needs a command: add, list, remove or update.")
            return _marketplace(args, project_dir)
        return _plugin(args, project_dir)
    except PluginError as exc:
        print(visible(str(exc)), file=sys.stderr)
        return 1


def _settings(project_dir: Path):  # noqa: ANN202 - LoadedSettings, imported lazily
    from tui.config.settings import load_settings

    return load_settings(project_dir)


def _marketplace(args: argparse.Namespace, project_dir: Path) -> int:
    from .marketplaces import add_marketplace, remove_marketplace, update_marketplace, views
    from .store import read_installed, read_known

    command = {"rm": "remove"}.get(args.market_command, args.market_command)
    if command == "add":
        source = sources.parse_source(args.source, project_dir)
        _say("Adding marketplace…")
        market = add_marketplace(source)
        _say(
            f"Added the marketplace {market.name} ({plural(len(market.plugins), 'plugin')}) from "
            f"{sources.describe(source)}."
        )
        for problem in market.problems:
            _warn(problem)
        if market.plugins:
            _say(f"Install one with: agent-tui plugin install {market.plugins[0].name}@{market.name}")
    elif command == "list":
        shown = views(_settings(project_dir).marketplaces)
        if not shown:
            _say("No marketplace is added. Add one with: agent-tui plugin marketplace add SOURCE")
        for view in shown:
            where = "" if view.added else f" (named in {view.named_in}; added when one of its plugins is installed)"
            _say(f"{view.name}  {sources.describe(view.source)}{where}")
            if view.problem:
                _say(f"  ! {view.problem}")
            for entry in view.market.plugins if view.market else []:
                _say(f"  {entry.name}{'  ' + entry.description if entry.description else ''}")
    elif command == "remove":
        removed = remove_marketplace(args.name)
        gone = [p for p in read_installed() if p.endswith(f"@{removed.name}")]
        from .install import uninstall

        for plugin_id in gone:
            uninstall(plugin_id)
        also = f" and uninstalled its {plural(len(gone), 'plugin')} ({', '.join(gone)})" if gone else ""
        _say(f"Removed the marketplace {removed.name}{also}.")
    else:
        names = [args.name] if args.name else list(read_known())
        if not names:
            _say("No marketplace is added.")
        for name in names:
            market = update_marketplace(name)
            _say(f"Updated the marketplace {market.name} ({plural(len(market.plugins), 'plugin')}).")
    return 0


def plugin_id_for(text: str, named: Sequence[object] = ()) -> str:
    """`name@marketplace` as given, or the one marketplace that lists `name`; PluginError otherwise."""
    if "@" in text:
        return text
    from .marketplaces import views

    found = [f"{text}@{v.name}" for v in views(named) if v.market and v.market.entry(text)]
    if len(found) == 1:
        return found[0]
    if not found:
        raise PluginError(
            f"No added marketplace lists a plugin called {text} (agent-tui plugin marketplace list shows them)."
        )
    raise PluginError(f"Several marketplaces list {text}: name one ({', '.join(found)}).")


def _plugin(args: argparse.Namespace, project_dir: Path) -> int:
    from .install import install, set_enabled, uninstall

    loaded = _settings(project_dir)
    command = {"i": "install", "remove": "uninstall", "rm": "uninstall"}.get(args.command, args.command)
    if command == "list":
        return _list(project_dir, loaded)
    plugin_id = plugin_id_for(args.plugin, loaded.marketplaces)
    if command == "install":
        done = install(plugin_id, named=loaded.marketplaces)
        if done.added_marketplace:
            _say(f"Added the marketplace {done.added_marketplace}, which the settings name.")
        path = set_enabled(plugin_id, True, project_dir, loaded, args.scope)
        parts, problems = _parts(plugin_id, done.record.install_path)
        _say(f"Installed {plugin_id} {done.record.version}: {parts}. It is on (enabled_plugins in {path}).")
        for problem in problems:
            _warn(problem)
    elif command == "uninstall":
        uninstall(plugin_id)
        still = [c for c in loaded.plugin_choices if c.plugin_id == plugin_id and c.folder and c.enabled]
        note = f" {still[-1].path} still enables it: trusting that folder installs it again." if still else ""
        _say(f"Uninstalled {plugin_id}.{note}")
    else:
        path = set_enabled(plugin_id, command == "enable", project_dir, loaded, args.scope)
        _say(
            f"{'Enabled' if command == 'enable' else 'Disabled'} {plugin_id} (enabled_plugins in {path}); "
            "a running agent-tui picks it up in /plugin or at its next start."
        )
    return 0


def _parts(plugin_id: str, install_path: str) -> tuple[str, list[str]]:
    """ "2 commands, 1 hook" and the problems of an installed plugin, read from its folder."""
    from .components import read_parts
    from .manifest import read_manifest

    root = Path(install_path)
    try:
        parts = read_parts(plugin_id, root, read_manifest(root), gated=False)
    except PluginError as exc:
        return "its manifest cannot be read", [str(exc)]
    return parts.counts(), parts.problems


def _list(project_dir: Path, loaded: object) -> int:
    from .active import effective_choices
    from .store import read_installed

    installed = read_installed()
    choices = effective_choices(loaded)
    if not installed and not choices:
        _say("No plugin is installed. Add a marketplace (agent-tui plugin marketplace add SOURCE), then install one.")
        return 0
    for plugin_id, record in installed.items():
        choice = choices.get(plugin_id)
        state = "enabled" if choice is not None and choice.enabled else "disabled"
        where = f" ({choice.path})" if choice is not None else ""
        _say(f"{plugin_id}  {record.version}  {state}{where}")
    for plugin_id, choice in choices.items():
        if plugin_id not in installed and choice.enabled:
            _say(f"{plugin_id}  not installed  enabled in {choice.path}")
    return 0
