"""Type checks for settings values, with messages that name the file, line and key."""

from __future__ import annotations

import math
import re
from typing import Any

from tui.config.modes import MODES

#: what reaching the compaction threshold does (the `compaction` setting)
COMPACTION_MODES = ("auto", "ask", "off")

#: top-level scalar settings: key -> (accepted kinds, may be None)
SCALAR_TYPES: dict[str, tuple[str, bool]] = {
    "model": ("string", False),
    "max_tokens": ("integer", False),
    "parallel_tools": ("boolean", False),
    "max_parallel_subagents": ("integer", False),
    "max_subagent_depth": ("integer", False),
    "permission_mode": ("mode", False),
    "max_turns": ("integer", True),
    "max_budget_tokens": ("integer", True),
    "max_retries": ("integer", False),
    "stream_idle_timeout": ("seconds", False),
    "theme": ("string", False),
    "auto_compact_threshold": ("number", False),
    "compaction": ("compaction", False),
    "cleanup_period_days": ("integer", False),
    "provider": ("string", True),
    "api_key_helper": ("string", True),
    "small_fast_model": ("string", True),
    "model_ids": ("names", False),
    # WebSearch, the API's server tool: searches per request, and the domains it may (or may not) use
    "web_search_max_uses": ("integer", False),
    "web_search_allowed_domains": ("rules", False),
    "web_search_blocked_domains": ("rules", False),
    "background_output_limit_mb": ("integer", False),
    # the prompt's keys: "vim" for vi keys (/vim toggles and saves it), "normal" otherwise
    "editor_mode": ("editor", False),
    # notifications while the terminal is not focused: how, and after how long a turn
    "notifications": ("notifications", False),
    "notify_after": ("number", False),
    # an attached image's long edge is scaled down to this (the API refuses an edge over 8000 px)
    "image_max_edge": ("pixels", False),
    # the effort of every request (Claude Code's effortLevel; `max` only for one session, with --effort or /effort)
    "effort": ("effort", True),
}
ALIASES = {
    "defaultMode": "permission_mode",
    "apiKeyHelper": "api_key_helper",
    "cleanupPeriodDays": "cleanup_period_days",
    "editorMode": "editor_mode",
    "effortLevel": "effort",
}
#: the levels a settings file may name (Claude Code's `effortLevel`)
SETTINGS_EFFORTS = ("low", "medium", "high", "xhigh")
EDITOR_MODES = ("normal", "vim")
EXPECTED = {
    "string": "a string",
    "integer": "an integer",
    "boolean": "true or false",
    "number": "a number",
    "seconds": "a number of seconds above 0",
    "mode": f"one of {', '.join(MODES)}",
    "compaction": f"one of {', '.join(COMPACTION_MODES)}",
    "rules": "a list of strings",
    "names": 'a table of model name = "provider model id"',
    "editor": f"one of {', '.join(EDITOR_MODES)}",
    "notifications": "one of auto, osc, bell, off",
    "pixels": "a whole number of pixels from 64 to 8000",
    "effort": "one of low, medium, high, xhigh",
}
NOTIFICATION_STYLES = ("auto", "osc", "bell", "off")


def type_name(value: Any) -> str:
    """How a TOML/JSON value's type reads in a message."""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a float"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a table"
    return f"a {type(value).__name__}"


def check_value(kind: str, value: Any, nullable: bool = False) -> tuple[Any, str | None]:
    """The value converted to its setting type, or None and what was expected instead."""
    if value is None and nullable:
        return None, None
    ok = False
    if kind in ("string", "mode", "editor"):
        ok = isinstance(value, str) and (kind == "string" or value in (MODES if kind == "mode" else EDITOR_MODES))
    elif kind == "compaction":
        ok = isinstance(value, str) and value in COMPACTION_MODES
    elif kind == "notifications":
        ok = isinstance(value, str) and value in NOTIFICATION_STYLES
    elif kind == "effort":
        ok = isinstance(value, str) and value in SETTINGS_EFFORTS
    elif kind == "integer":
        ok = isinstance(value, int) and not isinstance(value, bool) and value >= 0
    elif kind == "boolean":
        ok = isinstance(value, bool)
    elif kind == "pixels":
        ok = isinstance(value, int) and not isinstance(value, bool) and 64 <= value <= 8000
    elif kind in ("number", "seconds"):
        ok = (
            isinstance(value, (int, float))
            and not isinstance(value, bool)
            and math.isfinite(value)
            and (value > 0 if kind == "seconds" else value >= 0)
        )
        value = float(value) if ok else value
    elif kind == "rules":
        ok = isinstance(value, list) and all(isinstance(v, str) for v in value)
    elif kind == "names":
        ok = isinstance(value, dict) and all(isinstance(v, str) for v in value.values())
    if ok:
        return value, None
    numeric = isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == "pixels" and numeric:
        return None, f"expected {EXPECTED[kind]}, got {value}"
    if kind == "seconds" and numeric:
        return None, f"expected {EXPECTED[kind]} (and finite), got {value}"
    if kind == "number" and numeric and not math.isfinite(value):
        return None, f"expected a finite number, got {value}"
    if kind in ("integer", "number") and numeric and (kind == "number" or isinstance(value, int)):
        return None, f"expected {EXPECTED[kind]} of 0 or more, got {value}"
    got = (
        f"`{value}`"
        if kind in ("mode", "compaction", "editor", "notifications") and isinstance(value, str)
        else type_name(value)
    )
    return None, f"expected {EXPECTED[kind]}, got {got}"


def closest_key(key: str, known: list[str]) -> str:
    """` (did you mean `x`?)` when a known key is close to `key`, else ''."""
    import difflib

    near = difflib.get_close_matches(key, known, n=1, cutoff=0.7)
    return f" (did you mean `{near[0]}`?)" if near else ""


def find_line(text: str, key: str, table: str | None = None, json_file: bool = False) -> int | None:
    """The 1-based line where `key` is set (inside `[table]` when given), found by scanning the text."""
    if json_file:
        pattern = re.compile(rf'"{re.escape(key)}"\s*:')
    else:
        pattern = re.compile(rf'^\s*(?:"{re.escape(key)}"|{re.escape(key)})\s*=')
    dotted = re.compile(rf"^\s*{re.escape(table)}\.{re.escape(key)}\s*=") if table else None
    current: str | None = None
    fallback: int | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        header = re.match(r"^\s*\[+\s*([^\]]+?)\s*\]+", line) if not json_file else None
        if header:
            current = header.group(1).strip()
            continue
        if dotted and dotted.match(line):
            return number
        if pattern.search(line):
            if (table is None and current is None) or (table is not None and current == table) or json_file:
                return number
            fallback = fallback or number
    return fallback


def toml_error_position(message: str, text: str) -> tuple[int, int, str]:
    """(line, column, message) from a tomllib error text `… (at line 3, column 5)`."""
    m = re.search(r"\s*\(at line (\d+), column (\d+)\)\s*$", message)
    if m:
        return int(m.group(1)), int(m.group(2)), message[: m.start()]
    lines = text.splitlines() or [""]
    m = re.search(r"\s*\(at end of document\)\s*$", message)
    return len(lines), len(lines[-1]) + 1, (message[: m.start()] + " at the end of the file") if m else message
