"""The one reader for user-controlled JSON and TOML files: regular files only, a size cap, a depth cap.

Settings files, `.mcp.json`, `marketplace.json`, `plugin.json`, `hooks.json`, themes and the
plugin records can come from a folder nobody has vetted. A FIFO there would block `open()`,
`/dev/zero` would never end, a 50 MB file would fill memory and `[[[[…` 200,000 deep makes
both parsers raise RecursionError. Here the file is opened without blocking and checked to be
a regular file (`special_files`), at most `MAX_FILE_BYTES` are read, and the nesting is
counted on the text before parsing (and on the result after it, for TOML dotted keys), so
each of those is one `BoundedReadError` sentence naming the file. Standard library only.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from itertools import accumulate
from typing import IO, Any, AnyStr

from tui.config.special_files import SpecialFileError, read_regular_bytes
from tui.text.wording import plural

#: the largest settings/plugin/marketplace file read (Claude Code's own files are a few KiB)
MAX_FILE_BYTES = 8 * 1024 * 1024
#: the deepest nesting of objects and arrays accepted (real files nest fewer than ten levels)
MAX_DEPTH = 100
#: the longest input line read (ACP, `--input-format stream-json`): pictures travel as base64
MAX_LINE_BYTES = 50 * 1024 * 1024

#: what is not structure: strings (and, in TOML, comments), whose brackets do not nest anything
_JSON_SKIPPED = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_TOML_SKIPPED = re.compile(
    r"'''.*?'''|\"\"\"(?:[^\\]|\\.)*?\"\"\"|\"[^\"\\\n]*(?:\\.[^\"\\\n]*)*\"|'[^'\n]*'|#[^\n]*",
    re.S,
)
_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


class BoundedReadError(ValueError):
    """The file cannot be read or parsed safely; `str()` is one sentence naming it."""


def read_bounded_text(path: str | os.PathLike[str], limit: int = MAX_FILE_BYTES) -> str:
    """The UTF-8 text of the regular file `path`, at most `limit` bytes; never blocks on a FIFO.

    FileNotFoundError and NotADirectoryError pass up (callers treat a missing file as empty);
    every other problem is a BoundedReadError naming the file.
    """
    shown = os.fspath(path)
    try:
        data = read_regular_bytes(path, limit + 1)
    except (FileNotFoundError, NotADirectoryError):
        raise
    except SpecialFileError as exc:
        raise BoundedReadError(str(exc)) from None
    except OSError as exc:
        raise BoundedReadError(f"{shown} cannot be read ({exc.strerror or exc}).") from None
    if len(data) > limit:
        raise BoundedReadError(f"{shown} is larger than {describe_size(limit)}; agent-tui does not read it.")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BoundedReadError(f"{shown} is not UTF-8 text (byte {exc.start}).") from None


def nesting_depth(text: str, toml: bool = False) -> int:
    """The deepest `[`/`{` nesting of a JSON (or TOML) text, brackets inside strings and comments not counted.

    Quick on big texts: a text that opens at most MAX_DEPTH brackets cannot nest deeper, so the
    scan (regular expressions, then one pass over the brackets alone) runs only when it could.
    """
    opened = text.count("[") + text.count("{")
    if opened <= MAX_DEPTH:
        return opened  # an upper bound, and all a caller comparing with MAX_DEPTH needs
    brackets = _NOT_BRACKETS.sub("", (_TOML_SKIPPED if toml else _JSON_SKIPPED).sub("", text))
    # not clamped at 0: a stray closing bracket is a parse error at that very place, before anything deeper
    return max(accumulate(map(_STEP.__getitem__, brackets)), default=0)


def value_depth(value: Any) -> int:
    """The nesting depth of parsed data (0 for a scalar), walked without recursion."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        deepest = max(deepest, depth + 1)
        if deepest > MAX_DEPTH:
            return deepest
        stack.extend((child, depth + 1) for child in children)
    return deepest


def too_deep(path: str | os.PathLike[str]) -> str:
    """The sentence for a file nested deeper than MAX_DEPTH."""
    return f"{os.fspath(path)} is nested too deeply to read (more than {MAX_DEPTH} levels)."


def parse_json_text(path: str | os.PathLike[str], text: str, **kwargs: Any) -> Any:
    """`json.loads(text)` with the depth checked first; BoundedReadError (never RecursionError) when too deep.

    json.JSONDecodeError passes up so callers can name the line and column.
    """
    if nesting_depth(text) > MAX_DEPTH:
        raise BoundedReadError(too_deep(path))
    try:
        return json.loads(text, **kwargs)
    except RecursionError:  # a backstop: the scan above counts every bracket outside strings
        raise BoundedReadError(too_deep(path)) from None


def parse_toml_text(path: str | os.PathLike[str], text: str) -> dict[str, Any]:
    """`tomllib.loads(text)` with the depth checked before and after; TOMLDecodeError passes up."""
    import tomllib  # on the first TOML file read (~1.4 ms): none is read at a start without settings files

    if nesting_depth(text, toml=True) > MAX_DEPTH:
        raise BoundedReadError(too_deep(path))
    try:
        data = tomllib.loads(text)
    except RecursionError:
        raise BoundedReadError(too_deep(path)) from None
    if value_depth(data) > MAX_DEPTH:  # `a.a.a.a… = 1` nests without a bracket
        raise BoundedReadError(too_deep(path))
    return data


def load_json_file(path: str | os.PathLike[str]) -> Any:
    """The parsed JSON file: `read_bounded_text`, then `parse_json_text`."""
    return parse_json_text(path, read_bounded_text(path))


def load_toml_file(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The parsed TOML file: `read_bounded_text`, then `parse_toml_text`."""
    return parse_toml_text(path, read_bounded_text(path))


def bounded_lines(stream: IO[AnyStr], limit: int = MAX_LINE_BYTES) -> Iterator[AnyStr | None]:
    """Each line of `stream` with its newline, or None for a line longer than `limit`.

    A line over the limit is dropped whole: the rest of it, up to its newline, is read and thrown
    away, so its tail is never taken for a line of its own. Memory stays within `limit`.
    """
    while line := stream.readline(limit + 1):
        if len(line) <= limit or (len(line) == limit + 1 and _ends_line(line)):
            yield line
            continue
        while (rest := stream.readline(limit + 1)) and not _ends_line(rest):
            pass
        yield None


def _ends_line(line: str | bytes) -> bool:
    return line[-1:] in ("\n", b"\n")


def describe_size(limit: int) -> str:
    """`limit` bytes as people say it: "8 MiB", "64 KiB"."""
    if limit >= 1024 * 1024:
        return f"{limit // (1024 * 1024)} MiB"
    return f"{limit // 1024} KiB" if limit >= 1024 else plural(limit, "byte")


__all__ = [
    "MAX_DEPTH",
    "MAX_FILE_BYTES",
    "MAX_LINE_BYTES",
    "BoundedReadError",
    "bounded_lines",
    "describe_size",
    "load_json_file",
    "load_toml_file",
    "nesting_depth",
    "parse_json_text",
    "parse_toml_text",
    "read_bounded_text",
    "too_deep",
    "value_depth",
]
