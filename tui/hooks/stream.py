"""Claude Code's stream-json lines for hooks (`-p --output-format stream-json --include-hook-events`)."""

from __future__ import annotations

import uuid
from typing import Any


def hook_line(event: Any, session_id: str) -> dict[str, Any]:
    """The `system` line `hook_started` or `hook_response` for a HookStarted/HookFinished event."""
    line: dict[str, Any] = {
        "type": "system",
        "hook_id": event.hook_id,
        "hook_name": event.hook_name,
        "hook_event": event.hook_event,
    }
    if not hasattr(event, "exit_code"):
        line["subtype"] = "hook_started"
    else:
        line["subtype"] = "hook_response"
        line.update(
            output=event.stdout + event.stderr,
            stdout=event.stdout,
            stderr=event.stderr,
            exit_code=event.exit_code,
            outcome="success" if event.outcome == "success" else "error",
        )
    line.update(uuid=str(uuid.uuid4()), session_id=session_id)
    return {"type": line.pop("type"), "subtype": line.pop("subtype"), **line}
