"""Make untrusted text safe to print on a terminal: control characters become visible, never interpreted.

Model text, thinking, tool inputs and results, Bash output, file names and error messages can
carry escape sequences (`ESC ] 0 ; title BEL` renames the window, `ESC [ ? 1049 l` leaves the
alternate screen, `ESC c` resets the terminal, OSC 52 writes the clipboard). Everything shown
on screen or printed by `-p` text mode goes through `visible` first; the model and the JSON
output keep the exact text. Stdlib only, so tools, hooks and MCP can use it too.

- C0 controls other than newline and tab become Unicode control pictures (ESC is `␛`, so
  `ESC [2J` shows as `␛[2J`, BEL as `␇`); a lone carriage return is `␍` (CR LF stays a newline).
- DEL is `␡`; C1 controls (U+0080-U+009F, e.g. the 8-bit CSI) show as `\\x9b`.
- Bidi embedding/override/isolate controls (U+202A-U+202E, U+2066-U+2069), which make text
  read differently from what it is, show as `\\u202e`.
- Lone surrogates (undecodable bytes kept by `surrogateescape`) show as the byte, `\\xff`;
  other lone surrogates as `\\udXXX`. They would otherwise fail to encode on output.
- The user info of a URL (`http://user:password@proxy`) shows as `***` (tui/text/redact.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

from .redact import redact

__all__ = ["is_safe", "one_line", "visible"]


@cache
def _unsafe() -> re.Pattern[str]:
    """Everything `visible` rewrites (newline and tab are kept); compiled on first use, after the first frame."""
    return re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


#: what `visible` rewrites, plus newline and tab, for one-line places (labels, titles, the status line)
_UNSAFE_LINE = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def _build_table() -> dict[str, str]:
    table = {chr(c): chr(0x2400 + c) for c in range(0x20)}  # ␀ … ␟ (ESC is ␛)
    table["\x7f"] = "\u2421"  # ␡
    table.update({chr(c): f"\\x{c:02x}" for c in range(0x80, 0xA0)})
    table.update({chr(c): f"\\u{c:04x}" for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))})
    return table


_TABLE = _build_table()
#: in one-line places a newline is ⏎ and a tab a space
_LINE_TABLE = {**_TABLE, "\n": "\u23ce", "\t": " "}


def _picture(match: re.Match[str]) -> str:
    char = match.group()
    shown = _TABLE.get(char)
    if shown is not None:
        return shown
    code = ord(char)  # a lone surrogate
    return f"\\x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"\\u{code:04x}"


def _line_picture(match: re.Match[str]) -> str:
    return _LINE_TABLE.get(match.group()) or _picture(match)


#: ASCII controls `visible` and `one_line` rewrite, for the fast check of long ASCII text
_ASCII_UNSAFE = bytes(c for c in range(0x20) if c not in (0x09, 0x0A)) + b"\x7f"
_ASCII_UNSAFE_LINE = bytes(range(0x20)) + b"\x7f"
#: from this length a pure-ASCII text is checked as bytes (5 MB: ~5 ms instead of ~30 ms)
_BYTES_CHECK_CHARS = 4096


def _rewrite(text: str, unsafe: re.Pattern[str], picture: Callable[[re.Match[str]], str], ascii_unsafe: bytes) -> str:
    if len(text) >= _BYTES_CHECK_CHARS and text.isascii():
        if len(text.encode("ascii").translate(None, ascii_unsafe)) == len(text):
            return text
    elif unsafe.search(text) is None:
        return text
    if "\r\n" in text:
        text = text.replace("\r\n", "\n")
    return unsafe.sub(picture, text)


def visible(text: str) -> str:
    """`text` with every control character shown as a visible glyph (newline and tab kept).

    Fast when there is nothing to replace (one regex scan, the same string back), so it can run
    on every streamed delta. The user info of a URL (a proxy's password) shows as `***` (tui/text/redact.py).
    """
    return redact(_rewrite(text, _unsafe(), _picture, _ASCII_UNSAFE))


def one_line(text: str) -> str:
    """`text` made visible and kept on one line: newlines shown as `⏎`, tabs as spaces."""
    return redact(_rewrite(text, _UNSAFE_LINE, _line_picture, _ASCII_UNSAFE_LINE))


def is_safe(text: str) -> bool:
    """True when `visible(text)` would return `text` unchanged."""
    return _unsafe().search(text) is None and redact(text) == text
