"""OpenTelemetry export with Claude Code's switches, names and attributes: a bus subscriber, imported only when on.

`start()` reads CLAUDE_CODE_ENABLE_TELEMETRY and the OTEL_* variables; the CLI puts the returned
subscriber's `attach` in `AgentOptions.on_session` and calls `close()` on the way out.
"""

from __future__ import annotations

import os
from typing import TextIO

from .config import enabled, read_config
from .subscriber import Telemetry

__all__ = ["Telemetry", "enabled", "start"]


def start(*, interactive: bool, stderr: TextIO | None = None) -> Telemetry | None:
    """The subscriber the switches ask for, or None when telemetry is off or nothing is to be exported or said."""
    if not enabled(os.environ):
        return None
    config, problems = read_config(os.environ)
    if not config.any_signal and not problems:
        return None
    return Telemetry(config, problems, interactive=interactive, stderr=stderr)
