"""The line `-p` prints when a folder's own allow rules do not count (Claude Code's "Ignoring N …")."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tui.config.settings import LoadedSettings


def ignored_allow_notice(loaded: LoadedSettings) -> str | None:
    """ "Ignoring N permissions.allow entries from FILES: …", naming the rules; None when nothing is ignored."""
    from tui.config.settings import untrusted_allow_rules

    rules = untrusted_allow_rules(loaded)
    if not rules:
        return None
    files = list(dict.fromkeys(_shown(r.source, str(loaded.project_dir)) for r in rules))
    count = len(rules)
    return (
        f"Ignoring {count} permissions.allow {'entry' if count == 1 else 'entries'} from {' and '.join(files)} "
        f"({', '.join(r.rule for r in rules)}): this folder has not been trusted. Trust it with /trust in agent-tui "
        "(or accept the question at its start), or add the folder to trusted_folders in the user settings."
    )


def _shown(source: str, project_dir: str) -> str:
    return os.path.relpath(source, project_dir) if os.path.isabs(source) and source.startswith(project_dir) else source
