"""What `-r`, `/resume` and ACP `session/load` accept: the id of a session agent-tui saved, never a path.

agent-tui names its session files `20250101-120000-abcdef.jsonl` in the project's folder of the
session store; an id (or a unique part of one, as typed) is letters, digits, `-` and `_`. Anything
else (`../x`, `/etc/passwd`, `~/notes.jsonl`) is one sentence, and a file found by id must lie in
that folder itself, not be a link, so nothing outside the store is read as a session or written.
"""

from __future__ import annotations

import re
from pathlib import Path

#: an id as agent-tui makes it, or the part of one a user types
SESSION_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,127}")


def id_problem(target: str) -> str | None:
    """The sentence for a `target` that is not shaped like a session id; None for one that is."""
    if SESSION_ID.fullmatch(target):
        return None
    shown = target if len(target) <= 80 else target[:77] + "..."
    return (
        f"{shown!r} is not a session id: resuming takes the id of one of this project's saved sessions "
        "(agent-tui -r lists them), never a path."
    )


def outside_store(path: Path, folder: Path) -> str | None:
    """Why the session file `path` may not be used (a link, or not right in `folder`); None when it may."""
    if path.is_symlink():
        return f"The session file {path} is a link; agent-tui does not follow links in the session store."
    try:
        inside = path.resolve(strict=True).parent == folder.resolve(strict=True)
    except (OSError, RuntimeError):
        inside = False
    return None if inside else f"The session file {path} is not in the session store {folder}; it was not opened."


__all__ = ["SESSION_ID", "id_problem", "outside_store"]
