"""The records of a checkpoint log (checkpoints.py): a file changed, a prompt's checkpoint, a branch left by a rewind."""

from __future__ import annotations

import datetime as _dt
import os
import stat
from dataclasses import dataclass

#: a blob that was not recorded (a file Bash changed before the log knew its content, or one too big to keep)
UNKNOWN = "?"


@dataclass
class Change:
    """One file changed: blob names (None = absent, "?" = not recorded) and modes before and after."""

    pos: int
    path: str
    before: str | None
    after: str | None
    mode_before: int | None
    mode_after: int | None
    by: str
    checkpoint: int
    #: the real file behind `path` when the change was made through a link (restoring may follow only that link)
    real: str | None = None


@dataclass
class PromptPoint:
    """A checkpoint taken before a prompt: where the conversation and the change log stood."""

    id: int
    turn: int
    prompt: str
    msg: int
    conv: str
    pos: int
    ts: str


@dataclass
class Branch:
    """A conversation left by a rewind: its messages (a blob) and where the change log stood."""

    id: str
    conv: str
    messages: str
    pos: int
    first: str
    prompts: int
    ts: str


def now() -> str:
    return _dt.datetime.now().isoformat(timespec="seconds")


def file_mode(path: str) -> int | None:
    try:
        return stat.S_IMODE(os.lstat(path).st_mode)
    except OSError:
        return None
