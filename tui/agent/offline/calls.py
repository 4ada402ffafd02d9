"""The content blocks the offline model answers with: text, and tool calls with their inputs."""

from __future__ import annotations

import shlex
from typing import Any

from tui.agent.offline.project import GENERATED_DIRS, LOCK_FILES, SEARCH_EXCLUDES

Blocks = list[dict[str, Any]]


def text_block(text: str) -> dict[str, Any]:
    """A text block."""
    return {"type": "text", "text": text}


def tool_call(name: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    """A tool_use block (its id is assigned when the reply is complete)."""
    return {"type": "tool_use", "id": "", "name": name, "input": tool_input}


def _grep_command(pattern: str) -> str:
    """A `grep -rnIE` command that leaves out .git, generated folders, lock and minified files."""
    dirs = " ".join(f"--exclude-dir={shlex.quote(name)}" for name in sorted(GENERATED_DIRS))
    names = ["*.lock", "*.svg", "*.min.js", "*.min.css", "*.map", *sorted(LOCK_FILES)]
    files = " ".join(f"--exclude={shlex.quote(name)}" for name in names)
    return f"grep -rnIE {shlex.quote(pattern)} {dirs} {files} ."


def count_call(pattern: str) -> dict[str, Any]:
    """A Grep that counts matching lines per file: small output, so the total is complete."""
    return tool_call("Grep", {"pattern": pattern, "output_mode": "count", "glob": SEARCH_EXCLUDES})


def search_call(pattern: str, tools: set[str], description: str) -> dict[str, Any] | None:
    """A content search for `pattern` without generated files: Grep, else grep through Bash, else None."""
    if "Grep" in tools:
        return tool_call("Grep", {"pattern": pattern, "output_mode": "content", "-n": True, "glob": SEARCH_EXCLUDES})
    if "Bash" in tools:
        return tool_call("Bash", {"command": _grep_command(pattern), "description": description})
    return None
