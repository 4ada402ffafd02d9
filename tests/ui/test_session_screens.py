"""Pilot tests of the session screens: the resume picker with history, /undo, /export, /compact."""

from __future__ import annotations

from tui.agent.session import AgentSession
from tui.ui.app import AgentApp
from tui.ui.screens.resume_screen import ResumeScreen
from tui.ui.screens.undo_screen import UndoScreen
from tui.ui.widgets.blocks import UserPrompt
from tui.ui.widgets.conversation import TurnView

from .conftest import SIZE, notices, type_prompt, wait_until


def saved_session(options, prompts: list[str]) -> AgentSession:
    session = AgentSession(options)
    for prompt in prompts:
        session.run_turn(prompt)
    session.close()
    return session


async def test_resume_picker_filters_and_shows_the_history(offline_options) -> None:
    opts = dict(transcript=True, permission_mode="default", interactive=False)
    saved_session(offline_options(**opts), ["explain the project layout"])
    old = saved_session(offline_options(**opts), ["find the TODOs", "and the README"])
    app = AgentApp(offline_options(transcript=True), permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "/resume")
        await wait_until(pilot, lambda: isinstance(app.screen, ResumeScreen) and app.screen.sessions)
        screen = app.screen
        assert len(screen.sessions) == 2
        await pilot.press(*"todos")
        await pilot.pause()
        assert screen.query_one("#resume-filter").value == "todos", app.focused
        assert screen.query_one("#resume-list").option_count == 1
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.session.session_id == old.session_id and app.query(UserPrompt))
        await wait_until(pilot, lambda: len(app.query(TurnView)) == 2)
        prompts = [str(p.render()) for p in app.query(UserPrompt)]
        assert any("find the TODOs" in p for p in prompts) and any("and the README" in p for p in prompts)
        assert app.session.messages == old.messages


async def test_undo_shows_the_diff_then_restores_on_enter(offline_options, demo_project) -> None:
    app = AgentApp(offline_options(), permission_grace_s=0)
    target = demo_project / "app.py"
    before = target.read_bytes()
    async with app.run_test(size=SIZE) as pilot:
        app.session.checkpoints.prompt(1, "change app.py", 0)
        app.session.checkpoints.before_write(target, before, b"changed by the agent\n")
        target.write_text("changed by the agent\n")
        app.session.turn_count = 1
        await type_prompt(pilot, "/undo")
        await wait_until(pilot, lambda: isinstance(app.screen, UndoScreen))
        assert app.screen.plan.files[0].action == "restore"
        await pilot.press("enter")
        await wait_until(pilot, lambda: target.read_bytes() == before)
        assert app.session.checkpoints.undone == {1}


async def test_export_writes_into_the_project(offline_options, demo_project) -> None:
    app = AgentApp(offline_options(transcript=True), permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        app.session.messages = [{"role": "user", "content": [{"type": "text", "text": "hello there"}]}]
        await type_prompt(pilot, "/export")
        folder = demo_project / ".agent-tui" / "exports"
        await wait_until(pilot, lambda: folder.is_dir() and any(folder.glob("*.md")))
        assert "hello there" in next(folder.glob("*.md")).read_text()


async def test_continue_opens_the_app_on_the_resumed_history(offline_options) -> None:
    from tui.ui.screens.resume_screen import resumed_app

    opts = dict(transcript=True, interactive=False)
    old = saved_session(offline_options(**opts), ["find the TODOs"])
    session = AgentSession(offline_options(**opts))
    session.resume(old.session_id)
    app = resumed_app(session.options, None, session)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.query(UserPrompt))
        assert "find the TODOs" in str(app.query(UserPrompt).first().render())
        assert app.status.usage == session.usage_totals


async def test_resume_lists_the_session_open_now_marked(offline_options) -> None:
    saved_session(offline_options(transcript=True, interactive=False), ["explain the project layout"])
    app = AgentApp(offline_options(transcript=True), permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        await app.submit_prompt("find the TODOs")
        await wait_until(pilot, lambda: not app.controller.busy and app.session.messages)
        await type_prompt(pilot, "/resume")
        await wait_until(pilot, lambda: isinstance(app.screen, ResumeScreen) and app.screen.sessions)
        screen = app.screen
        assert len(screen.sessions) == 2
        listing = screen.query_one("#resume-list")
        lines = [str(listing.get_option_at_index(i).prompt) for i in range(listing.option_count)]
        mine = [line for line in lines if "find the TODOs" in line]
        assert len(mine) == 1 and mine[0].endswith("← this session")
        assert not any(line.endswith("← this session") for line in lines if "project layout" in line)
        listing.highlighted = lines.index(mine[0])
        await pilot.press("enter")
        await wait_until(pilot, lambda: any("session open now" in n for n in notices(app)))
