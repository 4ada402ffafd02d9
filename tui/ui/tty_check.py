"""Whether the full-screen app has a terminal to draw on (no Textual here: `agent-tui` asks before loading it)."""

from __future__ import annotations

import os
import sys


def terminal_missing() -> bool:
    """True when stdin or stdout is not a terminal (the full-screen app cannot run)."""
    for stream in (sys.stdin, sys.stdout):
        try:
            if stream is None or not os.isatty(stream.fileno()):
                return True
        except (AttributeError, OSError, ValueError):
            return True
    return False
