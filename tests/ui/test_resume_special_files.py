"""The app with odd session files: a FIFO in the sessions folder, a resumed file that cannot be written."""

from __future__ import annotations

import os

from tui.agent.history.resume import project_sessions_dir
from tui.agent.session import AgentSession
from tui.ui.app import AgentApp
from tui.ui.screens.resume_screen import ResumeScreen, resumed_app

from .conftest import SIZE, type_prompt, wait_until


def saved_session(options, prompt: str) -> AgentSession:
    session = AgentSession(options)
    session.run_turn(prompt)
    session.close()
    return session


def notes(app: AgentApp) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def test_resume_picker_skips_a_fifo_and_says_so(offline_options) -> None:
    saved = saved_session(offline_options(transcript=True, interactive=False), "find the TODOs")
    fifo = project_sessions_dir(offline_options()) / "20990101-000000-ffffff.jsonl"
    os.mkfifo(fifo)
    app = AgentApp(offline_options(transcript=True), permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "/resume")
        await wait_until(pilot, lambda: isinstance(app.screen, ResumeScreen) and app.screen.sessions)
        assert [s.id for s in app.screen.sessions] == [saved.session_id]
        await wait_until(pilot, lambda: any(fifo.name in n and "FIFO" in n for n in notes(app)))


async def test_continue_on_a_deleted_file_says_so_in_the_app_and_fork_saves_again(offline_options) -> None:
    old = saved_session(offline_options(transcript=True, interactive=False), "find the TODOs")
    session = AgentSession(offline_options(transcript=True, interactive=True))
    session.resume(old.session_id)
    old.transcript_path.unlink()  # gone after -c loaded it, before the app ran
    app = resumed_app(session.options, None, session)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "what next?")
        await wait_until(pilot, lambda: any("was deleted or replaced" in n and "/fork" in n for n in notes(app)))
        await wait_until(pilot, lambda: not app.session.running)
        await type_prompt(pilot, "/fork")
        await wait_until(pilot, lambda: any("Continuing in a new session file" in n for n in notes(app)))
        assert app.session.transcript_path.exists() and app.session.transcript_path != old.transcript_path
