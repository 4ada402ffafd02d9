"""The app's side of memory imports from outside the project: asked once per project, once it is trusted.

Runs on the trust worker thread. The outside imports the session's memory check keeps out for want of
an answer (tui/agent/context/memory_imports.py) are listed in ExternalImportsDialog, and the answer is saved for the project. A yes reloads the memory
for the next request; a no keeps them out without asking again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tui.ui.threads import call_soon_from_thread

if TYPE_CHECKING:
    from tui.ui.app import AgentApp

TITLE = "Memory imports"


def ask_external_imports(app: AgentApp) -> None:
    """In a trusted folder: ask about the memory imports from outside the project, when there are any."""
    pending = app.session.pending_memory_imports()
    if not pending:
        return
    lines = [(str(s.path), str(s.imported_from or s.path)) for s in pending]
    call_soon_from_thread(app, _ask, app, lines)


def _ask(app: AgentApp, lines: list[tuple[str, str]]) -> None:
    from tui.ui.screens.external_imports_dialog import ExternalImportsDialog

    app.push_screen(ExternalImportsDialog(lines, grace_s=app.permission_grace_s), lambda a: _answered(app, a))


def _answered(app: AgentApp, allow: bool | None) -> None:
    from tui.config.memory import save_external_imports_answer
    from tui.config.rule_files import SettingsWriteError

    if allow is None:
        app.notify("Memory imports from outside the project stay out; agent-tui asks again next time.", title=TITLE)
        return
    try:
        save_external_imports_answer(app.options.project_dir, allow)
    except (OSError, SettingsWriteError) as exc:
        app.notify(f"The answer could not be saved: {exc}", severity="error", title=TITLE, markup=False)
        return
    if allow:
        app.session.reload_memory()
        app.notify("Memory imports from outside the project load from the next request on.", title=TITLE)
    else:
        app.notify("Memory imports from outside the project stay out for this project.", title=TITLE)
