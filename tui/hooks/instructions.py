"""The `InstructionsLoaded` hook's input for one memory file, with Claude Code's fields (2.1.69)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def user_memory_dirs() -> list[Path]:
    """The folders whose memory files are the user's own (`memory_type: User`)."""
    from tui.config.paths import user_config_dir

    return [user_config_dir(), Path.home() / ".claude"]


def instructions_fields(memory: Any, compacted: bool, user_dirs: list[Path]) -> dict[str, Any]:
    """`file_path`, `memory_type`, `load_reason` and, when known, `globs`, `trigger_file_path`, `parent_file_path`.

    `memory` is a `tui.config.memory.MemoryFile` (or any object with `path` and `imported_from`; a
    `load_reason`, `globs` or `trigger_file_path` attribute is used as given).
    """
    path = Path(memory.path)
    parent = getattr(memory, "imported_from", None)
    reason = getattr(memory, "load_reason", None) or (
        "include" if parent else "compact" if compacted else "session_start"
    )
    if any(d == path.parent or d in path.parents for d in user_dirs):
        kind = "User"
    else:
        kind = "Local" if path.name.endswith(".local.md") else "Project"
    fields: dict[str, Any] = {"file_path": str(path), "memory_type": kind, "load_reason": reason}
    if globs := getattr(memory, "globs", None):
        fields["globs"] = [str(g) for g in globs]
    if trigger := getattr(memory, "trigger_file_path", None):
        fields["trigger_file_path"] = str(trigger)
    if parent:
        fields["parent_file_path"] = str(parent)
    return fields
