"""The hooks of settings files: parsed in `tui.config.hooks_config` (config imports no room above it), named here
too, and read for one folder by `load_hook_config`."""

from __future__ import annotations

from pathlib import Path

from tui.config.hooks_config import (
    DEFAULT_TIMEOUT_S,
    EVENTS,
    OTHER_CC_EVENTS,
    HookConfig,
    HookSpec,
    parse_hooks_block,
)

__all__ = [
    "DEFAULT_TIMEOUT_S",
    "EVENTS",
    "OTHER_CC_EVENTS",
    "HookConfig",
    "HookSpec",
    "load_hook_config",
    "parse_hooks_block",
]


def load_hook_config(project_dir: Path) -> HookConfig | None:
    """The hooks the settings of `project_dir` hold now (None when there are none): for tests and /hooks."""
    from tui.config.settings import load_settings

    loaded = load_settings(project_dir)
    if not loaded.hooks or loaded.hooks_disabled_by:
        return None
    return HookConfig(list(loaded.hooks), trusted=loaded.trusted)
