"""What `agent-tui replay` checks before its first frame: light, so the app's start does not wait for the events."""

from __future__ import annotations

import json
from pathlib import Path

from tui.config.special_files import read_regular_bytes

#: the playback speeds `+`/`-` step through; 0 plays without pauses
SPEEDS = (1.0, 4.0, 16.0, 0.0)


class ReplayError(LookupError):
    """The session cannot be replayed; the text says why."""


def check_replayable(path: Path) -> str:
    """The model a session file was recorded with; ReplayError when it cannot be replayed (a quick scan, no parse)."""
    try:
        raw = read_regular_bytes(path)
    except OSError as exc:
        raise ReplayError(f"Could not read the session file {path}: {exc.strerror or exc}.") from None
    if b'"TurnStarted"' not in raw:
        raise ReplayError(
            f"The session file {path} holds no recorded turn to replay "
            "(it is empty, damaged, or from a version that did not record events)."
        )
    try:
        header = json.loads(raw[: raw.find(b"\n")] if b"\n" in raw else raw)
    except ValueError:
        return ""
    return str(header.get("model") or "") if isinstance(header, dict) else ""
