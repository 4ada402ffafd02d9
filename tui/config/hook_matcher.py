"""Claude Code's matcher rules: `*`/empty for all, `A|B` exact names, anything else an unanchored regex."""

from __future__ import annotations

import re
from functools import lru_cache

_NAMES = re.compile(r"[A-Za-z0-9_\- |,]*")


@lru_cache(maxsize=256)
def compile_matcher(matcher: str) -> frozenset[str] | re.Pattern[str] | None:
    """None matches everything; a set holds exact names; a pattern is searched (ValueError when invalid)."""
    text = matcher.strip()
    if text in ("", "*"):
        return None
    if _NAMES.fullmatch(text):
        return frozenset(n.strip() for n in re.split(r"[|,]", text) if n.strip())
    try:
        return re.compile(text)
    except re.error as exc:
        raise ValueError(f"`{matcher}` is not a valid regular expression ({exc})") from None


def matches(matcher: str | None, value: str | None) -> bool:
    """Whether a handler group with `matcher` runs for an event whose matched field is `value`."""
    if matcher is None or value is None:
        return True
    try:
        compiled = compile_matcher(matcher)
    except ValueError:
        return False
    if compiled is None:
        return True
    if isinstance(compiled, frozenset):
        return value in compiled
    return compiled.search(value) is not None
