"""Marketplaces: added from a folder or a git URL, listed, read, updated and removed.

A folder (`directory` or `file` source) is read where it is; a git one is cloned into
`marketplaces/<name>/` and pulled by `update`. `known_marketplaces.json` remembers each. A team's
`extra_known_marketplaces` setting names marketplaces that are added when a plugin of theirs is installed.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import sources
from .manifest import MARKETPLACE, Marketplace, read_marketplace
from .store import KnownMarketplace, PluginError, marketplace_clone_dir, now, plugins_dir, read_known, write_known


@dataclass
class MarketplaceView:
    """A marketplace as the user sees it: added or only named by a settings file, and what it lists."""

    name: str
    source: dict[str, Any]
    #: added to known_marketplaces.json (False: only a settings file names it)
    added: bool
    #: the settings file naming it (for one that is not added)
    named_in: Path | None = None
    market: Marketplace | None = None
    #: why it cannot be read now (one sentence)
    problem: str = ""


def _location(source: dict[str, Any]) -> tuple[Path, Path]:
    """(root, marketplace.json) of a local source."""
    path = Path(str(source.get("path", ""))).expanduser()
    if source.get("source") == "file":
        root = path.parent.parent if path.parent.name == ".claude-plugin" else path.parent
        return root, path
    return path, path / MARKETPLACE


def fetch(source: dict[str, Any]) -> tuple[Marketplace, str]:
    """Read (a local source) or clone (a git one, into a temporary folder) the marketplace; (marketplace, folder)."""
    kind = source.get("source")
    if kind in ("directory", "file"):
        root, manifest = _location(source)
        if not root.is_dir():
            raise PluginError(f"The marketplace folder {root} does not exist.")
        return read_marketplace(root, manifest), str(root)
    url = sources.git_url(source)
    if url is None or kind == "url":
        raise PluginError(f"A {kind} marketplace source is not supported by agent-tui: use a folder or a git URL.")
    temp = Path(tempfile.mkdtemp(prefix=".adding-", dir=_clones()))
    try:
        sources.clone(url, temp / "repo", source.get("ref"))
        inner = source.get("path")
        market = read_marketplace(temp / "repo", temp / "repo" / inner if isinstance(inner, str) else None)
    except PluginError:
        shutil.rmtree(temp, ignore_errors=True)
        raise
    return market, str(temp / "repo")


def _clones() -> Path:
    folder = plugins_dir() / "marketplaces"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def add_marketplace(source: dict[str, Any], expected_name: str | None = None) -> Marketplace:
    """Add (or refresh) a marketplace; returns it. PluginError for a broken or unreachable one, or a name clash."""
    market, where = fetch(source)
    temp = Path(where).parent if source.get("source") not in ("directory", "file") else None
    try:
        if expected_name and market.name != expected_name:
            raise PluginError(
                f"The marketplace at {sources.describe(source)} is called {market.name}, "
                f"not {expected_name} as the settings name it."
            )
        known = read_known()
        old = known.get(market.name)
        if old is not None and old.source != source:
            raise PluginError(
                f"A marketplace called {market.name} is added already (from "
                f"{sources.describe(old.source)}); remove it first: "
                f"agent-tui plugin marketplace remove {market.name}."
            )
        if temp is not None:  # move the clone to its place, named after the marketplace
            dest = marketplace_clone_dir(market.name)
            if dest.exists():
                shutil.rmtree(dest)
            shutil.move(where, dest)
            where = str(dest)
            market = read_marketplace(dest, dest / source["path"] if isinstance(source.get("path"), str) else None)
        known[market.name] = KnownMarketplace(market.name, source, where, now())
        write_known(known)
        return market
    finally:
        if temp is not None:
            shutil.rmtree(temp, ignore_errors=True)


def load_marketplace(known: KnownMarketplace) -> Marketplace:
    """Read an added marketplace from its folder; PluginError when it is gone or broken."""
    root = Path(known.install_location)
    if not root.is_dir():
        raise PluginError(
            f"The marketplace {known.name} is missing its folder {root}; "
            f"add it again: agent-tui plugin marketplace add {_typed(known.source)}."
        )
    kind = known.source.get("source")
    if kind == "file":
        return read_marketplace(*_location(known.source))
    inner = known.source.get("path") if kind not in ("directory",) else None
    return read_marketplace(root, root / inner if isinstance(inner, str) else None)


def _typed(source: dict[str, Any]) -> str:
    """What to type to add `source` again."""
    return str(source.get("path") or source.get("url") or source.get("repo") or "")


def remove_marketplace(name: str) -> KnownMarketplace:
    """Forget a marketplace (and delete its clone); PluginError when it is not added."""
    known = read_known()
    entry = known.pop(name, None)
    if entry is None:
        raise PluginError(f"No marketplace called {name} is added (agent-tui plugin marketplace list shows them).")
    clone = marketplace_clone_dir(name)
    if Path(entry.install_location) == clone and clone.exists():
        shutil.rmtree(clone, ignore_errors=True)
    write_known(known)
    return entry


def update_marketplace(name: str) -> Marketplace:
    """Pull a git marketplace again (a folder one is read fresh every time); returns it."""
    known = read_known()
    entry = known.get(name)
    if entry is None:
        raise PluginError(f"No marketplace called {name} is added (agent-tui plugin marketplace list shows them).")
    if sources.git_url(entry.source) is not None:
        sources.pull(Path(entry.install_location))
    entry.last_updated = now()
    write_known(known)
    return load_marketplace(entry)


def views(named: Iterable[Any] = ()) -> list[MarketplaceView]:
    """Every added marketplace, then those only `named` by settings (tui.config.plugin_settings entries), read now."""
    found: dict[str, MarketplaceView] = {}
    try:
        known = read_known()
    except PluginError as exc:
        return [MarketplaceView("?", {}, True, problem=str(exc))]
    for entry in known.values():
        view = found[entry.name] = MarketplaceView(entry.name, entry.source, True)
        try:
            view.market = load_marketplace(entry)
        except PluginError as exc:
            view.problem = str(exc)
    for entry in named:
        if entry.name in found:
            continue
        source = settings_source(entry)
        view = found[entry.name] = MarketplaceView(entry.name, source, False, named_in=entry.path)
        if source.get("source") in ("directory", "file"):
            try:
                view.market = fetch(source)[0]
            except PluginError as exc:
                view.problem = str(exc)
    return list(found.values())


def settings_source(entry: Any) -> dict[str, Any]:
    """A settings entry's source with a relative folder path made absolute (from the folder of the settings)."""
    source = dict(entry.source)
    if source.get("source") in ("directory", "file") and isinstance(source.get("path"), str):
        path = Path(source["path"]).expanduser()
        source["path"] = str(path if path.is_absolute() else (entry.base_dir / path).resolve())
    return source
