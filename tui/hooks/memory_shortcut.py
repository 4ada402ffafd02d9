"""`#text` at the prompt start: add a line to a memory file the user picks (project, local or user)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from tui.config.paths import user_config_dir
from tui.config.special_files import read_regular_bytes


@dataclass(frozen=True)
class MemoryTarget:
    """A memory file a `#` line can go to."""

    key: str  # "project" | "local" | "user"
    label: str
    path: Path


def project_memory_file(project_dir: Path) -> Path:
    """`CLAUDE.md` where one exists and no `AGENTS.md` does, else `AGENTS.md`."""
    agents, claude = project_dir / "AGENTS.md", project_dir / "CLAUDE.md"
    return claude if claude.exists() and not agents.exists() else agents


def memory_targets(project_dir: Path) -> list[MemoryTarget]:
    """The three places Claude Code offers: the project's file, the local (uncommitted) one, the user's."""
    project = project_memory_file(project_dir)
    local = project.with_name(project.stem + ".local.md")
    user = user_config_dir() / "AGENTS.md"
    return [
        MemoryTarget("project", f"Project memory ({project.name}, shared with the team)", project),
        MemoryTarget("local", f"Local memory ({local.name}, only you, in this project)", local),
        MemoryTarget("user", f"User memory ({_home_relative(user)}, every project)", user),
    ]


def _home_relative(path: Path) -> str:
    home = os.path.expanduser("~")
    text = str(path)
    return "~" + text[len(home) :] if text.startswith(home + os.sep) else text


def add_memory_line(path: Path, text: str) -> str:
    """Append `- text` to `path` (created with its folder if missing); returns a sentence saying so.

    OSError when the file cannot be written (the caller shows it); an existing file is read
    FIFO-safely, so a special file there is refused instead of blocking.
    """
    line = text.strip().lstrip("#").strip()
    if not line:
        raise ValueError("Nothing to remember: write the text after `#`.")
    existing = read_regular_bytes(path) if path.exists() else b""
    path.parent.mkdir(parents=True, exist_ok=True)
    prefix = b"" if not existing or existing.endswith(b"\n") else b"\n"
    with open(path, "ab") as handle:
        handle.write(prefix + f"- {line}\n".encode())
    return f"Remembered in {path}: {line}"
