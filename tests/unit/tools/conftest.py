"""Fixtures for tool tests: a temporary project and a ToolContext over it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tui.tools.base import SessionState, ToolContext


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    return root


@pytest.fixture
def ctx(project: Path) -> ToolContext:
    from tui.agent.history.checkpoints import Checkpoints

    state = SessionState(project_dir=project, checkpoint=Checkpoints(None, "test", project))
    return ToolContext(project_dir=project, state=state)


def backups(ctx: ToolContext) -> list[tuple[str, bytes | None]]:
    """(path, content before) of each write the context's checkpoints recorded, oldest first."""
    cps = ctx.state.checkpoint
    return [(c.path, None if c.before is None else cps.blobs.get(c.before)) for c in cps.changes]
