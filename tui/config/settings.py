"""Settings: the typed model and the layered loader (user, project, local, flags).

Later layers win for scalar values; permission rule lists merge.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_MODEL = "claude-sonnet-5-5"


@dataclass
class Settings:
    """Every setting agent-tui reads, with its default."""

    model: str = DEFAULT_MODEL
    #: max_tokens sent with each request
    max_tokens: int = 16000
    #: run consecutive read-only tool calls in parallel
    parallel_tools: bool = True
    #: permission mode: default | acceptEdits | plan | bypassPermissions
    permission_mode: str = "default"
    allow: list[str] = field(default_factory=list)
    deny: list[str] = field(default_factory=list)
    ask: list[str] = field(default_factory=list)
    #: loop boundaries
    max_turns: int | None = None
    max_budget_tokens: int | None = None
    #: retries of failed API calls (the first attempt not counted)
    max_retries: int = 4
    #: seconds without a byte from the stream before it counts as stalled
    stream_idle_timeout: float = 90.0
    theme: str = "agent-tui-dark"
    #: automatic compaction at this share of the context window
    auto_compact_threshold: float = 0.8
    trusted_folders: list[str] = field(default_factory=list)


def user_config_dir() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "agent-tui"


def user_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "agent-tui"
