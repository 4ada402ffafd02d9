"""Temp projects with real command and skill files, trusted or not."""

from __future__ import annotations

from pathlib import Path

import pytest


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def trust(project: Path) -> None:
    """Trust `project` in the (isolated) user settings, as accepting the trust question does."""
    from tui.config.settings import trust_folder

    trust_folder(project)


@pytest.fixture
def user_claude(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty `~/.claude` for this test (CLAUDE_CONFIG_DIR)."""
    home = tmp_path / "claude-home"
    home.mkdir()
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home))
    return home
