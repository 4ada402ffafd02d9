"""Unpaired UTF-16 surrogates: find them and replace them, so a history can always be sent.

`json.loads` accepts `"\\ud800"` and hands back a lone surrogate, which cannot be encoded as
UTF-8: a request or transcript line holding one fails (httpx raises UnicodeEncodeError, the
API answers 400). Text from the stream, a user's prompt (a `surrogateescape`d argv byte) or a
transcript goes through here before it joins the history.
"""

from __future__ import annotations

import re
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")
REPLACEMENT = "\ufffd"


def has_surrogate(text: str) -> bool:
    """True when `text` holds a surrogate code point (ASCII text is checked in O(1) per char, in C)."""
    return not text.isascii() and _SURROGATE.search(text) is not None


def first_surrogate(text: str) -> str:
    """The first surrogate of `text` as `U+D800`, for a message."""
    match = _SURROGATE.search(text)
    return f"U+{ord(match.group()):04X}" if match else ""


def scrub_text(text: str) -> str:
    """`text` with every surrogate replaced by U+FFFD."""
    return _SURROGATE.sub(REPLACEMENT, text) if has_surrogate(text) else text


def contains_surrogate(value: Any) -> bool:
    """True when a string anywhere in a JSON-like value (keys included) holds a surrogate."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if has_surrogate(item):
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return False


def scrub(value: Any) -> Any:
    """A copy of a JSON-like value with surrogates replaced; the value itself when it holds none."""
    if not contains_surrogate(value):
        return value
    if isinstance(value, str):
        return scrub_text(value)
    if isinstance(value, dict):
        return {scrub(k): scrub(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [scrub(v) for v in value]
    return value
