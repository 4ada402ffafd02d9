"""The prompt's size cap: what of a paste fits, and where the whole of a too-big paste is kept."""

from __future__ import annotations

import os
import tempfile

#: 256 KiB: about 64k tokens, a third of a 200k context window, leaving room for the project and the reply
MAX_PROMPT_CHARS = 256 * 1024
CAP_LABEL = "256 KiB"


def full_notice() -> str:
    return (
        f"The prompt is full (it holds at most {CAP_LABEL}); send it, or save big text in a file for the agent to read."
    )


def save_paste(text: str) -> str | None:
    """Write the whole paste to a private temp file; its path, or None if it could not be written."""
    try:
        fd, path = tempfile.mkstemp(prefix="agent-tui-paste-", suffix=".txt")
        with os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape") as out:
            out.write(text)
    except OSError:
        return None
    return path


def cut_paste(text: str, room: int) -> tuple[str, str | None]:
    """The part of `text` that fits in `room` characters (cut after a newline if one is near), and a notice if cut."""
    if len(text) <= room:
        return text, None
    room = max(room, 0)
    cut = text.rfind("\n", 0, room) + 1
    if cut < room // 2:  # no newline in the second half: cut at the cap itself
        cut = room
    kept = text[:cut]
    saved = save_paste(text)
    where = f"the whole paste is saved in {saved}" if saved else "the rest could not be saved"
    notice = (
        f"The prompt holds at most {CAP_LABEL}: kept the first {len(kept):,} of {len(text):,} pasted "
        f"characters; {where} (ask the agent to read that file)."
    )
    return kept, notice
