"""The YAML frontmatter of command and skill files: the small subset Claude Code's files use.

`key: value` lines, quoted or plain strings, booleans (true/false, yes/no, on/off, 1/0),
inline lists `[a, b]`, block lists (`- item` lines) and folded `>`/`|` blocks. Anything else
(lists nested past MAX_LIST_DEPTH too) is a `FrontmatterError` with one sentence naming the
line, so a broken file is reported, not half-read.
"""

from __future__ import annotations

import re
from typing import Any

TRUE = {"true", "yes", "on", "1"}
FALSE = {"false", "no", "off", "0"}
#: inline lists nest at most this deep (a file of 1,000 `[` would otherwise exhaust the recursion limit)
MAX_LIST_DEPTH = 16
_KEY = re.compile(r"^([A-Za-z_][\w-]*)\s*:(?:\s+(.*))?$")


class FrontmatterError(ValueError):
    """The frontmatter cannot be read; the message says where and why."""


def split_frontmatter(text: str) -> tuple[dict[str, Any], str]:
    """(fields, body) of a Markdown file; a file without a leading `---` has no fields."""
    text = text.lstrip("\ufeff")
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        return {}, text
    for end in range(1, len(lines)):
        if lines[end].strip() == "---":
            fields = parse_fields([line.rstrip("\r\n") for line in lines[1:end]])
            return fields, "".join(lines[end + 1 :]).lstrip("\n")
    raise FrontmatterError("the frontmatter opened with `---` on line 1 is never closed by another `---` line")


def _scalar(raw: str, line_no: int, depth: int = 0) -> Any:
    value = raw.strip()
    if not value:
        return ""
    if value[0] in "\"'":
        if len(value) < 2 or value[-1] != value[0]:
            raise FrontmatterError(f"line {line_no}: the quoted value {_short(value)} has no closing quote")
        inner = value[1:-1]
        return inner.replace('\\"', '"').replace("\\n", "\n") if value[0] == '"' else inner.replace("''", "'")
    if value.startswith("["):
        if not value.endswith("]"):
            raise FrontmatterError(f"line {line_no}: the list {_short(value)} has no closing `]`")
        if depth >= MAX_LIST_DEPTH:
            raise FrontmatterError(f"line {line_no}: lists are nested more than {MAX_LIST_DEPTH} deep")
        return [_scalar(item, line_no, depth + 1) for item in _split_items(value[1:-1]) if item.strip()]
    if value.startswith("{"):
        raise FrontmatterError(f"line {line_no}: inline tables (`{{…}}`) are not supported here")
    if " #" in value:
        value = value.split(" #", 1)[0].rstrip()
    return value


def _short(value: str, limit: int = 60) -> str:
    """`value` quoted for a message, cut to `limit` characters (a hostile line may be 256 KiB)."""
    return repr(value) if len(value) <= limit else repr(value[: limit - 1] + "…")


def _split_items(inner: str) -> list[str]:
    items, current, quote = [], "", ""
    for ch in inner:
        if quote:
            current += ch
            if ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
            current += ch
        elif ch == ",":
            items.append(current)
            current = ""
        else:
            current += ch
    items.append(current)
    return items


def parse_fields(lines: list[str]) -> dict[str, Any]:
    """The fields of the lines between the two `---` markers."""
    fields: dict[str, Any] = {}
    i = 0
    while i < len(lines):
        line = lines[i]
        number = i + 2  # the first field line is the file's line 2
        i += 1
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line[0] in " \t":
            raise FrontmatterError(f"line {number}: an indented line {_short(line.strip())} belongs to no key")
        match = _KEY.match(line)
        if not match:
            raise FrontmatterError(f"line {number}: {_short(line.strip())} is not a `key: value` line")
        key, raw = match.group(1), (match.group(2) or "").strip()
        block: list[str] = []
        while i < len(lines) and (not lines[i].strip() or lines[i][0] in " \t-"):
            if lines[i].startswith("-") and raw:
                break
            block.append(lines[i])
            i += 1
        if raw in (">", "|", ">-", "|-"):
            parts = [b.strip() for b in block]
            fields[key] = (" " if raw[0] == ">" else "\n").join(p for p in parts if p or raw[0] == "|").strip()
        elif block and any(b.strip() for b in block):
            if raw:
                raise FrontmatterError(f"line {number}: `{key}` has a value and indented lines after it")
            items = [b.strip() for b in block if b.strip()]
            if not all(item.startswith("- ") or item == "-" for item in items):
                raise FrontmatterError(f"line {number}: `{key}` is followed by indented lines that are not `- item`s")
            fields[key] = [_scalar(item[1:], number) for item in items]
        else:
            fields[key] = _scalar(raw, number)
    return fields


def as_bool(value: Any) -> bool | None:
    """A frontmatter boolean (Claude Code accepts yes/no/on/off/1/0); None when it is none of them."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    return True if text in TRUE else False if text in FALSE else None


def as_list(value: Any) -> list[str]:
    """A tool list: a YAML list, or one string separated by commas or spaces (`Bash(git add:*), Read`)."""
    if isinstance(value, list):
        return [str(v).strip() for v in value if str(v).strip()]
    text = str(value or "")
    out, current, depth = [], "", 0
    for ch in text:
        depth += ch == "("
        depth -= ch == ")" and depth > 0
        if ch in ", " and depth == 0:
            if current.strip():
                out.append(current.strip())
            current = ""
        else:
            current += ch
    if current.strip():
        out.append(current.strip())
    return out
