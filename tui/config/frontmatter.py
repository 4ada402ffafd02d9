"""The YAML frontmatter of commands, skills, agents and rules: the subset Claude Code's files use.

`key: value` lines, quoted or plain strings, booleans (true/false, yes/no, on/off, 1/0),
inline lists `[a, b]`, block lists (`- item` lines), nested `key:` blocks, plain values
continued on indented lines, and folded `>`/`|` blocks. A value YAML cannot read
(`[--aggressive] | [--maximum]`, an unclosed quote, `{…}`) is kept as its text, as Claude
Code's second, quoting pass keeps it. A structure that is not YAML (a stray indented line,
lists nested past MAX_LIST_DEPTH) is a `FrontmatterError` with one sentence naming the
line; Claude Code then loads the file without frontmatter, and so do the callers here.
"""

from __future__ import annotations

import re
from typing import Any

TRUE = {"true", "yes", "on", "1"}
FALSE = {"false", "no", "off", "0"}
#: inline lists nest at most this deep (a file of 1,000 `[` would otherwise exhaust the recursion limit)
MAX_LIST_DEPTH = 16
_NUMBER = re.compile(r"[-+]?(?:\d+|\d*\.\d+|\d+\.\d*)(?:[eE][-+]?\d+)?")
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
    return {}, text  # never closed: Claude Code reads the whole file as the body


def body_after_frontmatter(text: str) -> str:
    """The text after a closed leading `---` block (the whole text when there is none)."""
    lines = text.lstrip("\ufeff").splitlines(keepends=True)
    if lines and lines[0].strip() == "---":
        for end in range(1, len(lines)):
            if lines[end].strip() == "---":
                return "".join(lines[end + 1 :]).lstrip("\n")
    return text.lstrip("\ufeff")


def _scalar(raw: str, line_no: int, depth: int = 0) -> Any:
    value = raw.strip()
    if not value:
        return ""
    if value[0] in "\"'":
        if len(value) < 2 or value[-1] != value[0]:
            return value  # YAML refuses it; Claude Code's quoting pass keeps the text
        inner = value[1:-1]
        return inner.replace('\\"', '"').replace("\\n", "\n") if value[0] == '"' else inner.replace("''", "'")
    if value.startswith("["):
        if not value.endswith("]") or _has_text_between_lists(value):
            return value  # `[--aggressive] | [--maximum]`: not a YAML list, so Claude Code keeps the text
        if depth >= MAX_LIST_DEPTH:
            raise FrontmatterError(f"line {line_no}: lists are nested more than {MAX_LIST_DEPTH} deep")
        return [_scalar(item, line_no, depth + 1) for item in _split_items(value[1:-1]) if item.strip()]
    if value.startswith("{"):
        return value  # an inline table: no field here wants one, and the text is what a string field shows
    if " #" in value:
        value = value.split(" #", 1)[0].rstrip()
    return _plain(value)


def _plain(value: str) -> Any:
    """A plain YAML scalar as YAML 1.2 types it: true/false, null, integers and decimals; else the text."""
    lowered = value.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered in ("null", "~"):
        return None
    if _NUMBER.fullmatch(value):
        return float(value) if any(c in value for c in ".eE") else int(value)
    return value


def _short(value: str, limit: int = 60) -> str:
    """`value` quoted for a message, cut to `limit` characters (a hostile line may be 256 KiB)."""
    return repr(value) if len(value) <= limit else repr(value[: limit - 1] + "…")


def _has_text_between_lists(value: str) -> bool:
    """Whether the brackets of `value` close before its end (`[a] | [b]`), so it is not one list."""
    depth = 0
    for at, ch in enumerate(value):
        depth += (ch == "[") - (ch == "]")
        if depth == 0:
            return at != len(value) - 1
    return True


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


def parse_fields(lines: list[str], depth: int = 0) -> dict[str, Any]:
    """The fields of the lines between the two `---` markers."""
    if depth >= MAX_LIST_DEPTH:
        raise FrontmatterError(f"tables are nested more than {MAX_LIST_DEPTH} deep")
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
            fields[key] = _block_value(key, raw, block, number, depth)
        else:
            fields[key] = _scalar(raw, number)
    return fields


def _block_value(key: str, raw: str, block: list[str], number: int, depth: int) -> Any:
    """The value of `key` whose indented lines follow it: a plain value continued, a `- item` list or a table."""
    items = [b.strip() for b in block if b.strip()]
    if raw:
        if "\t" in "".join(block) or any(": " in item or item.endswith(":") for item in items):
            raise FrontmatterError(f"line {number}: `{key}` has a value and indented lines after it")
        return " ".join([raw, *items])  # YAML folds a plain value's indented lines into it
    if all(item.startswith("- ") or item == "-" for item in items):
        return [_scalar(item[1:], number) for item in items]
    if any(item.startswith("- ") for item in items) or any(b[:1] == "\t" for b in block if b.strip()):
        raise FrontmatterError(f"line {number}: `{key}` is followed by indented lines that are not `- item`s")
    indent = min(len(b) - len(b.lstrip()) for b in block if b.strip())
    return parse_fields([b[indent:] for b in block], depth + 1)  # a nested table (`hooks:`, `metadata:`)


def as_bool(value: Any) -> bool | None:
    """A frontmatter boolean (Claude Code accepts yes/no/on/off/1/0); None when it is none of them."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    return True if text in TRUE else False if text in FALSE else None


def as_text(value: Any) -> str:
    """A value where Claude Code wants a string, as its `String(value)` gives it: lists joined by commas."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ",".join(as_text(v) for v in value)
    if isinstance(value, dict):
        return "[object Object]"
    return "" if value is None else str(value)


def as_list(value: Any) -> list[str]:
    """A tool list: a YAML list, or one string separated by commas or spaces (`Bash(git add:*), Read`)."""
    if isinstance(value, list):
        return [as_text(v).strip() for v in value if as_text(v).strip()]
    text = as_text(value)
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
