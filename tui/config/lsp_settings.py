"""The `[lsp]` settings: switches, and `[lsp.servers.NAME]` tables (a folder's own wait for trust: they run)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import field
from pathlib import Path
from typing import Any

from tui.config.lean_dataclass import lean_dataclass

#: scalar keys of `[lsp]` -> (check, what it must be)
SWITCHES: dict[str, tuple[Callable[[Any], bool], str]] = {
    "enabled": (lambda v: isinstance(v, bool), "true or false"),
    "diagnostics_timeout": (
        lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and 0 < v <= 60,
        "a number of seconds above 0 (at most 60)",
    ),
    "warnings": (lambda v: isinstance(v, bool), "true or false"),
    "start_timeout": (
        lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and 0 < v <= 300,
        "a number of seconds above 0 (at most 300)",
    ),
    "max_diagnostics": (
        lambda v: isinstance(v, int) and not isinstance(v, bool) and 0 < v <= 500,
        "a whole number from 1 to 500",
    ),
}
SERVER_KEYS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "command": (lambda v: isinstance(v, str) and bool(v.strip()), "a command (string)"),
    "args": (lambda v: isinstance(v, list) and all(isinstance(a, str) for a in v), "a list of strings"),
    "extensions": (lambda v: isinstance(v, list) and all(isinstance(a, str) for a in v), "a list of file extensions"),
    "extensionToLanguage": (
        lambda v: isinstance(v, dict) and all(isinstance(a, str) for a in v.values()),
        'a table of ".ext" = "language id"',
    ),
    "root_markers": (lambda v: isinstance(v, list) and all(isinstance(a, str) for a in v), "a list of file names"),
    "init_options": (lambda v: isinstance(v, dict), "a table"),
    "initializationOptions": (lambda v: isinstance(v, dict), "a table"),
    "env": (lambda v: isinstance(v, dict) and all(isinstance(a, str) for a in v.values()), "a table of strings"),
}


@lean_dataclass
class LspConfig:
    """`[lsp]` as read: switches and the declared servers (name -> checked table, and the file of each)."""

    switches: dict[str, Any] = field(default_factory=dict)
    servers: dict[str, dict[str, Any]] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)


def merge(loader: Any, path: Path, text: str, value: Any, *, folder: bool) -> None:
    """Merge one file's `lsp` table into `loader` (a settings `Loader`: settings_layers.py), one sentence per problem."""
    config: LspConfig = loader.loaded.settings.lsp
    if not isinstance(value, dict):
        loader.problem(path, text, "lsp", "expected a table; ignored.")
        return
    for key, item in value.items():
        if key == "servers":
            _servers(loader, config, path, text, item, folder)
        elif key in SWITCHES:
            check, expected = SWITCHES[key]
            if check(item):
                config.switches[key] = float(item) if key.endswith("_timeout") else item
            else:
                loader.problem(path, text, key, f"expected {expected}; ignored.", "lsp")
        else:
            known = ", ".join([*SWITCHES, "servers"])
            loader.problem(path, text, key, f"unknown key (lsp takes {known}); ignored.", "lsp")


def _servers(loader: Any, config: LspConfig, path: Path, text: str, value: Any, folder: bool) -> None:
    if not isinstance(value, dict):
        loader.problem(path, text, "servers", "expected a table of servers; ignored.", "lsp")
        return
    for name, table in value.items():
        where = f"lsp.servers.{name}"
        if not isinstance(table, dict):
            loader.problem(path, text, str(name), "expected a table; ignored.", "lsp.servers")
            continue
        if folder and not loader.loaded.trusted:  # a server is a program the folder would have run
            loader.problem(
                path,
                text,
                str(name),
                "a language server from this folder waits until you trust it (/trust).",
                "lsp.servers",
            )
            loader.loaded.withheld.append((where, str(table.get("command", "")), path))
            continue
        checked: dict[str, Any] = {}
        for key, item in table.items():
            if key not in SERVER_KEYS:
                loader.problem(path, text, key, f"unknown key (servers take {', '.join(SERVER_KEYS)}); ignored.", where)
            elif not SERVER_KEYS[key][0](item):
                loader.problem(path, text, key, f"expected {SERVER_KEYS[key][1]}; ignored.", where)
            else:
                checked[key] = item
        if "command" not in checked or not (checked.get("extensions") or checked.get("extensionToLanguage")):
            loader.problem(path, text, str(name), "a server needs `command` and `extensions`; ignored.", "lsp.servers")
            continue
        config.servers[name] = checked
        config.sources[name] = str(path)
