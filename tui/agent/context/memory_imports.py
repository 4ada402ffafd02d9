"""The session's memory files, each through the Read tool's rules (tui/tools/attachments.py).

A file kept out is named once with its sentence (a Notice: stderr in `-p`, a toast in the app), except
the outside imports the app asks about ("allow imports from outside this project?", once per project):
those wait in `pending_external` until the user answers.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from tui.agent.events import Notice
from tui.config.memory import (
    ImportCheck,
    SkippedImport,
    external_imports_answer,
    load_memory_checked,
    memory_system_text,
)
from tui.tools.attachments import AttachmentRules, memory_import_check

if TYPE_CHECKING:
    from tui.agent.session import AgentSession


def session_memory_check(session: AgentSession) -> ImportCheck:
    """The check this session's memory files pass: its policy, its folder's trust, whether it can ask."""
    project_dir = Path(session.options.project_dir)
    rules = AttachmentRules(
        project_dir=project_dir,
        policy=session.policy,
        interactive=bool(session.options.interactive),
        no_question="-p never imports memory files from outside the project",
        confined=not getattr(session.policy, "trusted", True),
        state=session.state,
    )
    return memory_import_check(rules, external_imports_answer(project_dir) is True)


def load_session_memory(session: AgentSession) -> str:
    """The memory block of the system prompt; sets `memory_files` and `memory_skipped`, names new refusals."""
    load = load_memory_checked(Path(session.options.project_dir), session_memory_check(session))
    session.path_rules.arm(load, Path(session.options.project_dir))  # `.claude/rules` with `paths:`, subfolders
    session.memory_files = list(load.files)
    session.memory_skipped = load.skipped
    told: set[str] = session.memory_told
    for skipped in load.skipped:
        if not skipped.external and str(skipped.path) not in told:
            told.add(str(skipped.path))
            session.publish(Notice(level="warning", text=skipped.notice))
    return memory_system_text(load.files)


def pending_external(session: AgentSession) -> list[SkippedImport]:
    """The outside imports that wait for the project's answer (asked in the app; [] once answered).

    Reads the memory files through the session's check without touching what the session sends.
    """
    project_dir = Path(session.options.project_dir)
    if external_imports_answer(project_dir) is not None:
        return []
    return [s for s in load_memory_checked(project_dir, session_memory_check(session)).skipped if s.external]
