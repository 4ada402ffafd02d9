"""File names shown to the model and the user, and read back from tool inputs, exactly.

A name that is valid UTF-8, holds only printable characters and no `$'` is shown as it
is. Any other name is shown whole in Bash's ANSI-C quoting, `$'…'`: inside the quotes
`\\` and `'` are escaped with a backslash, newline, tab and carriage return are `\\n`,
`\\t`, `\\r`, other unprintable characters are `\\uHHHH` (or `\\UHHHHHHHH`) and bytes
that are not UTF-8 are `\\xHH`. So `a<newline>b.txt` reads `$'a\\nb.txt'` and a file
whose name is the byte 0xff then `.txt` reads `$'\\xff.txt'`; the same text pasted into
Bash names the same file. Tool inputs are read back with `parse_name`, the exact inverse
(`parse_name(show_name(n)) == n` for every name), so the path shown can be opened.
"""

from __future__ import annotations

import os
import re

_SIMPLE = {"\\": "\\\\", "'": "\\'", "\n": "\\n", "\t": "\\t", "\r": "\\r"}
_UNESCAPE = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
}
_ESCAPE = re.compile(r"\\(?:x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|.)", re.DOTALL)


def show_name(name: str | bytes) -> str:
    """How the path `name` (str from the file system, or raw bytes) is shown: as is, or `$'…'`."""
    raw = name if isinstance(name, bytes) else os.fsencode(name)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        pass
    else:
        if text.isprintable() and "$'" not in text:
            return text
    return "$'" + "".join(_escape_char(ch) for ch in raw.decode("utf-8", errors="surrogateescape")) + "'"


def _escape_char(ch: str) -> str:
    """One character inside `$'…'`."""
    if ch in _SIMPLE:
        return _SIMPLE[ch]
    code = ord(ch)
    if 0xDC80 <= code <= 0xDCFF:  # a byte that is not UTF-8, kept by surrogateescape
        return f"\\x{code - 0xDC00:02x}"
    if ch.isprintable():
        return ch
    if code < 0x80:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def parse_name(text: str) -> str:
    """The path a tool input names: each `$'…'` part unquoted (Bash's rules), the rest as is.

    A path without `$'`, or whose quote is never closed, is taken literally. Bytes given
    as `\\xHH` come back as the file system's str form (surrogateescape), so os calls
    open the very file.
    """
    if "$'" not in text:
        return text
    out = bytearray()
    pos = 0
    while (start := text.find("$'", pos)) >= 0:
        out += os.fsencode(text[pos:start])
        body = _quoted_body(text, start + 2)
        if body is None:
            return text
        out += _unescape(body)
        pos = start + 2 + len(body) + 1
    out += os.fsencode(text[pos:])
    return os.fsdecode(bytes(out))


def _quoted_body(text: str, pos: int) -> str | None:
    """The text between `$'` (ending before `pos`) and its closing quote, or None when unclosed."""
    i = pos
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == "'":
            return text[pos:i]
        i += 1
    return None


def _unescape(body: str) -> bytes:
    """The bytes `body` (the inside of `$'…'`) stands for."""
    out = bytearray()
    pos = 0
    for match in _ESCAPE.finditer(body):
        out += body[pos : match.start()].encode("utf-8", errors="surrogateescape")
        pos = match.end()
        seq = match.group()[1:]
        if seq[0] == "x" and len(seq) > 1:
            out.append(int(seq[1:], 16))
        elif seq[0] in "uU" and len(seq) > 1:
            out += chr(min(int(seq[1:], 16), 0x10FFFF)).encode("utf-8", errors="surrogatepass")
        elif seq[0] in "01234567":
            out.append(int(seq, 8) & 0xFF)
        else:
            out += _UNESCAPE.get(seq, "\\" + seq).encode("utf-8", errors="surrogateescape")
    out += body[pos:].encode("utf-8", errors="surrogateescape")
    return bytes(out)
