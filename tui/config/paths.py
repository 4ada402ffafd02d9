"""Where settings files live (docs/settings.md)."""

from __future__ import annotations

import os
from pathlib import Path

PROJECT_DIR_NAME = ".agent-tui"
#: folders whose files are never written without asking (except in bypassPermissions)
PROTECTED_DIRS = (".git", ".agent-tui", ".claude")


def user_config_dir() -> Path:
    """`$XDG_CONFIG_HOME/agent-tui` (default `~/.config/agent-tui`)."""
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "agent-tui"


def user_data_dir() -> Path:
    """`$XDG_DATA_HOME/agent-tui` (default `~/.local/share/agent-tui`)."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "agent-tui"


def user_state_dir() -> Path:
    """`$XDG_STATE_HOME/agent-tui` (default `~/.local/state/agent-tui`): what the app remembers between runs."""
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(base) / "agent-tui"


def user_settings_file() -> Path:
    return user_config_dir() / "settings.toml"


def project_settings_file(project_dir: Path) -> Path:
    return project_dir / PROJECT_DIR_NAME / "settings.toml"


def local_settings_file(project_dir: Path) -> Path:
    return project_dir / PROJECT_DIR_NAME / "settings.local.toml"


def claude_settings_files(project_dir: Path) -> list[Path]:
    """Claude Code's project and local settings, in that order."""
    return [project_dir / ".claude" / "settings.json", project_dir / ".claude" / "settings.local.json"]
