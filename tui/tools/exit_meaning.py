"""Exit status 1 that is an answer, not a failure: `diff`/`cmp` (files differ), `grep` (no match), `test`."""

from __future__ import annotations

from pathlib import Path

from tui.config.bash_parse import parse_bash

#: commands whose exit status 1 means "different", "not found" or "false"
ANSWER_ON_ONE = frozenset({"diff", "cmp", "grep", "egrep", "fgrep", "rg", "test", "[", "[["})


def exit_is_error(command: str, exit_code: int, cwd: Path) -> bool:
    """False for exit 0, and for exit 1 of a command whose last part answers with 1 (as Claude Code reports)."""
    if exit_code == 0:
        return False
    if exit_code != 1:
        return True
    parsed = parse_bash(command, cwd)
    if parsed.error is not None or not parsed.commands or not parsed.commands[-1].argv:
        return True
    return parsed.commands[-1].argv[0] not in ANSWER_ON_ONE
