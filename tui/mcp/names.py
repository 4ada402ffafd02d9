"""Tool names for the API: `mcp__<server>__<tool>`, sanitised, capped, and unique."""

from __future__ import annotations

import hashlib
import re

#: the API's pattern for a tool name is ^[a-zA-Z0-9_-]{1,64}$
MAX_NAME = 64
_OUTSIDE = re.compile(r"[^A-Za-z0-9_-]")


def sanitise(part: str) -> str:
    """`part` with every character outside [A-Za-z0-9_-] replaced by `_` (as Claude Code does)."""
    return _OUTSIDE.sub("_", part) or "_"


def api_name(server: str, tool: str) -> str:
    """`mcp__server__tool`, sanitised; a name past 64 characters is cut and ends in a hash of the whole."""
    name = f"mcp__{sanitise(server)}__{sanitise(tool)}"
    if len(name) <= MAX_NAME:
        return name
    digest = hashlib.sha1(f"{server}\0{tool}".encode()).hexdigest()[:8]
    return f"{name[: MAX_NAME - 9]}_{digest}"


def unique_names(pairs: list[tuple[str, str]], taken: set[str] | None = None) -> dict[tuple[str, str], str]:
    """An API name per (server, tool); a name two pairs share goes to the first in sorted order, the others get `_2`, `_3`…"""
    used = set(taken or ())
    names: dict[tuple[str, str], str] = {}
    for pair in sorted(pairs):
        base = api_name(*pair)
        name, n = base, 1
        while name in used:
            n += 1
            suffix = f"_{n}"
            name = base[: MAX_NAME - len(suffix)] + suffix
        used.add(name)
        names[pair] = name
    return names


def server_prefix(server: str) -> str:
    """`mcp__server__`: what every tool name of `server` starts with (rules match on it)."""
    return f"mcp__{sanitise(server)}__"
