"""The `statusLine` setting: a command fed Claude Code's status-line JSON whose first stdout line is shown.

The command runs under `sh -c` in the project folder through `tui.tools.captured` (read until it
exits; its whole tree is killed on a timeout, and whatever it leaves holding its output), with the
JSON on stdin. Its first line
passes `one_line`, so no escape sequence it prints reaches the terminal.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui import __version__
from tui.text.sanitize import one_line

if TYPE_CHECKING:
    from .session_view import SessionView

#: a status command that takes longer than this is killed (and shows nothing this time)
TIMEOUT_S = 5.0
MAX_LINE_CHARS = 400


def status_payload(session: SessionView, *, duration_ms: int = 0, api_duration_ms: int = 0) -> dict[str, Any]:
    """The JSON Claude Code gives its status-line command, from this session."""
    options = session.options
    project = str(options.project_dir)
    usage = dict(getattr(session, "usage_totals", {}) or {})
    context = getattr(session, "context", None)
    window = context.window() if context is not None else None
    used, _ = context.current() if context is not None else (0, False)
    return {
        "hook_event_name": "Status",
        "session_id": getattr(session, "session_id", ""),
        "transcript_path": str(session.transcript_path) if getattr(session, "transcript_path", None) else "",
        "cwd": project,
        "model": {"id": options.model, "display_name": options.model},
        "workspace": {"current_dir": project, "project_dir": project},
        "version": __version__,
        "output_style": {"name": "default"},
        "permission_mode": getattr(session.policy, "mode", options.permission_mode),
        "cost": {
            "total_cost_usd": round(float(getattr(session, "cost_usd", 0.0)), 6),
            "total_duration_ms": duration_ms,
            "total_api_duration_ms": api_duration_ms,
            "total_lines_added": 0,
            "total_lines_removed": 0,
        },
        "context_window": {
            "total_input_tokens": sum(
                int(usage.get(k) or 0)
                for k in ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
            ),
            "total_output_tokens": int(usage.get("output_tokens") or 0),
            "context_window_size": window,
            "current_usage": used,
        },
        "exceeds_200k_tokens": bool(used and used > 200_000),
    }


def run_status_command(command: str, payload: dict[str, Any], project_dir: Path) -> str:
    """The command's first stdout line, made safe for one line; '' when it failed, timed out or printed nothing."""
    from tui.tools.captured import run_captured

    try:  # read until the command itself exits: a child it left holding stdout is killed, not waited for
        done = run_captured(
            ["/bin/sh", "-c", command],
            cwd=project_dir,
            timeout=TIMEOUT_S,
            stdin=json.dumps(payload).encode("utf-8"),
            keep_bytes=64 * 1024,
        )
    except OSError:
        return ""
    if done.timed_out:
        return ""
    first = done.stdout.decode("utf-8", "replace").split("\n", 1)[0].rstrip("\r")
    return one_line(first[:MAX_LINE_CHARS])
