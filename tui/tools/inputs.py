"""Defensive readers for tool inputs: the model may send wrong types or odd values."""

from __future__ import annotations

from typing import Any

from tui.tools.base import ToolError


def get_str(tool_input: dict[str, Any], key: str, *, required: bool = True, allow_empty: bool = True) -> str | None:
    """The string at `key`; a ToolError when it is missing, not a string, or holds a NUL byte."""
    value = tool_input.get(key)
    if value is None:
        if required:
            raise ToolError(f"The `{key}` parameter is required; call the tool again with it.")
        return None
    if not isinstance(value, str):
        raise ToolError(f"The `{key}` parameter must be a string, not {type(value).__name__}.")
    if not allow_empty and not value.strip():
        raise ToolError(f"The `{key}` parameter must not be empty.")
    if "\x00" in value and key in ("file_path", "path", "pattern", "glob", "type"):
        raise ToolError(f"The `{key}` parameter contains a NUL byte; send a plain path or pattern.")
    return value


def get_int(tool_input: dict[str, Any], key: str, *, minimum: int | None = None) -> int | None:
    """The integer at `key` (numeric strings accepted), or None when absent."""
    value = tool_input.get(key)
    if value is None:
        return None
    if isinstance(value, bool):
        raise ToolError(f"The `{key}` parameter must be an integer, not a boolean.")
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        value = int(value.strip())
    if not isinstance(value, int):
        raise ToolError(f"The `{key}` parameter must be an integer.")
    if minimum is not None and value < minimum:
        raise ToolError(f"The `{key}` parameter must be at least {minimum}; got {value}.")
    return value


def get_bool(tool_input: dict[str, Any], key: str, default: bool = False) -> bool:
    """The boolean at `key`; "true"/"false" strings are accepted too."""
    value = tool_input.get(key)
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise ToolError(f"The `{key}` parameter must be true or false.")
