"""Claude Code's matcher rules; they live in `tui.config.hook_matcher` (config reads them), named here too."""

from tui.config.hook_matcher import compile_matcher, matches

__all__ = ["compile_matcher", "matches"]
