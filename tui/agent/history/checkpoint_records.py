"""The records of a checkpoint log (checkpoints.py): a file changed, a prompt's checkpoint, a branch left by a rewind."""

from __future__ import annotations

import datetime as _dt
import json
import os
import stat
from dataclasses import dataclass
from typing import Any

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


def prompt_point(r: dict[str, Any]) -> PromptPoint:
    """A `prompt` record of the log as a PromptPoint."""
    return PromptPoint(
        int(r["id"]),
        int(r.get("turn", 0)),
        str(r.get("prompt", "")),
        int(r["msg"]),
        str(r.get("conv", "")),
        int(r["pos"]),
        str(r.get("ts", "")),
    )


def prompts_in_log(raw: bytes, before: int) -> list[PromptPoint]:
    """The prompt checkpoints of a log (`raw`, the manifest's bytes) with an id below `before`, in log order."""
    out: list[PromptPoint] = []
    for line in raw.split(b"\n"):
        if b'"prompt"' not in line:
            continue
        try:
            r = json.loads(line)
            if r.get("t") == "prompt" and int(r["id"]) < before:
                out.append(prompt_point(r))
        except (ValueError, TypeError, KeyError, AttributeError):
            continue
    return out


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
