"""Chips under a prompt in the conversation: each file, folder and MCP resource it attaches with `@`."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from rich.text import Text

from tui.text.sanitize import one_line


def attachment_chips(app: Any, text: str) -> list[str]:
    """One label per thing `text` attaches: `file app.py · 1.2 KB`, `folder src/`, `MCP kitchen · notes://today`."""
    if "@" not in text:
        return []
    from tui.tools.attachments import mentioned_paths, resource_mentions

    chips: list[str] = []
    options = getattr(app, "options", None)
    if options is not None:
        project_dir = Path(options.project_dir)
        for raw in dict.fromkeys(mentioned_paths(text)):
            path = Path(os.path.normpath(project_dir / os.path.expanduser(raw)))
            if path.is_dir():
                chips.append(f"folder {raw.rstrip('/')}/")
            elif path.is_file():
                chips.append(f"file {raw} · {_size(path)}")
    runtime = getattr(getattr(app, "_session", None), "mcp", None)
    servers = set(runtime.manager.states) if runtime is not None else set()
    chips += [f"MCP {server} · {uri}" for server, uri in dict.fromkeys(resource_mentions(text)) if server in servers]
    return chips


def chips_text(chips: list[str]) -> Text:
    """The chips on one line (wrapping between chips), each drawn reversed so every theme shows it."""
    line = Text()
    for chip in chips:
        if line:
            line.append(" ")
        line.append(f" {one_line(chip)} ", style="reverse")
    return line


def _size(path: Path) -> str:
    try:
        size = path.stat().st_size
    except OSError:
        return "?"
    return f"{size} B" if size < 1024 else f"{size / 1024:.1f} KB" if size < 1024**2 else f"{size / 1024**2:.1f} MB"
