"""What a session is built with when its builder gives nothing: the built-in tools and the permission policy read
from the settings files plus the command-line rules."""

from __future__ import annotations

from typing import Any

from tui.tools.base import Tool

from .options import AgentOptions


def default_tools() -> list[Tool]:
    """The built-in tools (the registry is imported when a session is built without its own list)."""
    from tui.tools.registry import default_tools

    return default_tools()


def default_policy(options: AgentOptions) -> Any:
    """The permission policy from settings files plus command-line rules."""
    try:
        from tui.config.settings import build_policy, load_settings
    except ImportError:
        from tui.config.permissions import PermissionPolicy

        return PermissionPolicy(
            mode=options.permission_mode,
            allow=list(options.allowed_tools),
            deny=list(options.disallowed_tools),
            project_dir=options.project_dir,
        )
    loaded = load_settings(options.project_dir)
    if loaded.hooks and not loaded.hooks_disabled_by and options.hooks is None:  # read once, at start
        from tui.hooks.config import HookConfig

        options.hooks = HookConfig(list(loaded.hooks), trusted=loaded.trusted)
    policy = build_policy(
        loaded, options.project_dir, options.permission_mode, options.allowed_tools, options.disallowed_tools
    )
    policy.extra_dirs = options.add_dirs  # the same list: /add-dir adds to it as the session runs
    return policy
