"""What the hooks room reads of a session, typed without importing the engine (the structure test forbids it).

The whole front door is `tui.agent.door.Session`; it has everything named here, so a front end passes
its session as it is.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from tui.tools.base import SessionState


class SessionOptions(Protocol):
    """The settings of a session that hooks and their inputs name."""

    @property
    def project_dir(self) -> Path: ...
    @property
    def model(self) -> str: ...
    @property
    def permission_mode(self) -> str: ...


class SessionView(Protocol):
    """A session as the hooks room sees it: read-only."""

    @property
    def options(self) -> SessionOptions: ...
    @property
    def policy(self) -> Any: ...
    @property
    def state(self) -> SessionState: ...
    @property
    def session_id(self) -> str: ...
    @property
    def transcript_path(self) -> Path | None: ...
