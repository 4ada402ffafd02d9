"""Counts and short texts in words: "1 file" / "3 files", cuts at a word boundary, a path as the user reads it;
stdlib only."""

from __future__ import annotations

import os
from pathlib import Path

_IRREGULAR = {"match": "matches", "entry": "entries", "directory": "directories", "was": "were", "is": "are"}


def plural_noun(count: int, noun: str, many: str | None = None) -> str:
    """The noun alone, singular for exactly one (`many` overrides the plural form)."""
    if count == 1:
        return noun
    return many or _IRREGULAR.get(noun) or noun + "s"


def plural(count: int, noun: str, many: str | None = None) -> str:
    """`count` with thousands separators and the noun in the right number: "1 file", "1,204 files"."""
    return f"{count:,} {plural_noun(count, noun, many)}"


def shorten(text: str, width: int, ellipsis: str = "…") -> str:
    """`text` cut to at most `width` characters at a word boundary, with an ellipsis when cut.

    A single word longer than the width (a path, a hash) is cut inside it, as nothing else fits.
    """
    if len(text) <= width:
        return text
    room = max(width - len(ellipsis), 1)
    cut = text[:room]
    if not text[room].isspace():
        head, space, _ = cut.rpartition(" ")
        if space and len(head.rstrip()) >= room // 2:
            cut = head
    return cut.rstrip(" ,;:") + ellipsis


def middle_cut(text: str, width: int, ellipsis: str = "…") -> str:
    """`text` cut to `width` characters in the middle, so its end (a path's file name) stays.

    The end keeps two thirds of the room, and a whole last path part when it fits.
    """
    if len(text) <= width:
        return text
    room = max(width - len(ellipsis), 2)
    tail = max(room * 2 // 3, 1)
    last = text.rsplit("/", 1)[-1]
    if len(last) < room and len(last) + 1 > tail:
        tail = min(len(last) + 1, room - 1)  # the whole file name, with its slash
    head = room - tail
    return text[:head] + ellipsis + text[len(text) - tail :]


def shown_path(path: Path | str, project_dir: Path) -> str:
    """`path` relative to `project_dir` when inside it, with `~` for the home folder otherwise."""
    text = str(path)
    root = str(project_dir)
    if text.startswith(root + os.sep):
        return text[len(root) + 1 :]
    home = os.path.expanduser("~")
    return "~" + text[len(home) :] if home not in ("", "/") and text.startswith(home + os.sep) else text
