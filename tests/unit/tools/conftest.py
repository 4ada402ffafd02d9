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
    return ToolContext(project_dir=project, state=SessionState(project_dir=project))
