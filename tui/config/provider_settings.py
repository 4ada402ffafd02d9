"""`[providers.NAME]` tables: provider profiles, checked key by key and merged across the layers.

A profile names an endpoint that speaks the Messages API (a gateway, a local server, a cloud provider) and
how to reach and price it. A later layer changes the keys it sets of a profile of the same name. A folder's
own profile sends your prompts and code to its `base_url`, so it waits for trust like `apiKeyHelper`.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

#: what `kind` may be: how the client is built (the plain Messages API, or a cloud provider's signing)
KINDS = ("anthropic", "bedrock", "vertex")
#: what an endpoint may lack; `supports` lists what it has (absent: everything)
CAPABILITIES = ("tools", "thinking", "images", "caching")
PRICE_KEYS = ("input", "output", "cache_write", "cache_read")
NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")
#: key -> what it must be (for the message)
KEYS = {
    "kind": f"one of {', '.join(KINDS)}",
    "base_url": "an http:// or https:// URL",
    "api_key_env": "the name of an environment variable",
    "api_key_helper": "a command (string)",
    "headers": 'a table of header name = "value"',
    "models": "a list of model names",
    "price": "a table of input, output, cache_write, cache_read (USD per million tokens, 0 or more)",
    "context_window": "a whole number of tokens above 0",
    "max_output": "a whole number of tokens above 0",
    "supports": f"a list of {', '.join(CAPABILITIES)}",
}


def _check(key: str, value: Any) -> bool:
    """Whether `value` is what `key` must be."""
    if key == "kind":
        return value in KINDS
    if key == "base_url":
        return isinstance(value, str) and re.match(r"^https?://[^\s/]+", value) is not None
    if key in ("api_key_env", "api_key_helper"):
        return isinstance(value, str) and bool(value.strip())
    if key == "headers":
        return isinstance(value, dict) and all(isinstance(v, str) for v in value.values())
    if key == "models":
        return isinstance(value, list) and all(isinstance(v, str) and v for v in value)
    if key == "price":
        return (
            isinstance(value, dict)
            and set(value) <= set(PRICE_KEYS)
            and all(
                isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v >= 0
                for v in value.values()
            )
        )
    if key in ("context_window", "max_output"):
        return isinstance(value, int) and not isinstance(value, bool) and value > 0
    if key == "supports":
        return isinstance(value, list) and all(v in CAPABILITIES for v in value)
    return False


def merge(loader: Any, path: Path, text: str, value: Any, *, folder: bool) -> None:
    """Merge one file's `providers` table into `loader` (a settings `Loader`: settings_layers.py), one sentence per problem."""
    if not isinstance(value, dict):
        loader.problem(path, text, "providers", "expected a table of provider profiles; ignored.")
        return
    profiles: dict[str, dict[str, Any]] = loader.loaded.settings.providers
    for name, table in value.items():
        where = f"providers.{name}"
        if not NAME.match(str(name)):
            loader.problem(path, text, str(name), "a profile name is letters, digits, - and _; ignored.", "providers")
            continue
        if not isinstance(table, dict):
            loader.problem(path, text, str(name), "expected a table; ignored.", "providers")
            continue
        if folder and not loader.loaded.trusted:  # prompts and code would go to the folder's endpoint
            loader.problem(
                path,
                text,
                str(name),
                "a provider profile from this folder is ignored until you trust it (/trust).",
                "providers",
            )
            loader.loaded.withheld.append((where, str(table.get("base_url", "(no base_url)")), path))
            continue
        merged = dict(profiles.get(name, {}))
        for key, item in table.items():
            if key not in KEYS:
                loader.problem(path, text, key, f"unknown key (profiles take {', '.join(KEYS)}); ignored.", where)
            elif not _check(key, item):
                loader.problem(path, text, key, f"expected {KEYS[key]}; ignored.", where)
            else:
                merged[key] = item
        profiles[name] = merged
        loader.loaded.settings.provider_sources[name] = str(path)
