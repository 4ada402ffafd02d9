"""How a tool call's state is shown: its glyph, colour and word, and a duration in words.

Shared by the conversation's tool blocks and the tool panel; a module of its own so the tool panel
(on the first screen) does not import the blocks (not needed before the first turn).
"""

from __future__ import annotations

#: glyph and CSS-variable colour per tool state, shared with the tool panel
TOOL_STATE_STYLE: dict[str, tuple[str, str]] = {
    "preparing": ("◌", "$text-muted"),
    "queued": ("○", "$text-muted"),
    "waiting": ("◐", "$warning"),
    "running": ("●", "$accent"),
    "done": ("✔", "$success"),
    "error": ("✘", "$error"),
    "denied": ("⊘", "$warning"),
    "interrupted": ("■", "$warning"),
}
TOOL_STATE_WORD = {
    "preparing": "preparing",
    "queued": "queued",
    "waiting": "waiting for approval",
    "running": "running",
    "done": "done",
    "error": "error",
    "denied": "denied",
    "interrupted": "interrupted",
}


def format_seconds(seconds: float | None) -> str:
    """A duration as the panels show it: `3.2 s`, `45 s`, `2 min 5 s`."""
    if seconds is None:
        return ""
    if seconds < 10:
        return f"{seconds:.1f} s"
    if seconds < 120:
        return f"{seconds:.0f} s"
    return f"{int(seconds // 60)} min {int(seconds % 60)} s"
