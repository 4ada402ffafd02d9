"""The rewind list in the app: Esc Esc and /rewind, keys 1/2/3, the prompt back in the input, conflicts."""

from __future__ import annotations

from tui.ui.app import AgentApp
from tui.ui.screens.rewind_screen import RewindScreen

from .conftest import SIZE, type_prompt, wait_until


async def run_turn(app: AgentApp, pilot, text: str) -> None:
    done = app.session.turn_count + 1
    await type_prompt(pilot, text)
    await wait_until(pilot, lambda: app.session.turn_count == done and not app.controller.busy, timeout=30)


async def test_esc_esc_rewinds_code_and_conversation_then_conflicts_are_asked_about(
    offline_options, demo_project
) -> None:
    app = AgentApp(offline_options(transcript=True, permission_mode="bypassPermissions"), permission_grace_s=0)
    original = (demo_project / "app.py").read_bytes()
    async with app.run_test(size=SIZE) as pilot:
        await run_turn(app, pilot, "fix the TODO in app.py")
        assert (demo_project / "app.py").read_bytes() != original
        await run_turn(app, pilot, "fix the TODO in util.py")

        await pilot.press("escape", "escape")
        await wait_until(pilot, lambda: isinstance(app.screen, RewindScreen))
        screen = app.screen
        assert [e.prompt for e in screen.entries] == ["fix the TODO in app.py", "fix the TODO in util.py"]
        listed = screen.query_one("#rewind-list")
        assert listed.highlighted == 1  # the newest selected
        assert "app.py +1 -1" in str(listed.get_option_at_index(0).prompt)
        await pilot.press("up", "enter")
        await wait_until(pilot, lambda: screen.stage == "choose")
        assert "1  Restore code and conversation" in str(screen.question.render())
        await pilot.press("1")
        await wait_until(pilot, lambda: not isinstance(app.screen, RewindScreen) and app.prompt_area.text)
        await wait_until(pilot, lambda: (demo_project / "app.py").read_bytes() == original)
        assert app.prompt_area.text == "fix the TODO in app.py" and app.session.messages == []
        assert app.prompt_area.cursor_location == app.prompt_area.document.end  # typing goes on at its end

        # back to the branch, then an outside edit: the dialog names it and k keeps it
        app.prompt_area.load_text("")
        await type_prompt(pilot, "/rewind")
        await wait_until(pilot, lambda: isinstance(app.screen, RewindScreen))
        screen = app.screen
        assert [e.is_branch for e in screen.entries] == [True]
        await pilot.press("enter", "3")
        await wait_until(pilot, lambda: (demo_project / "app.py").read_bytes() != original)
        (demo_project / "util.py").write_text("edited by hand\n")
        await type_prompt(pilot, "/rewind")
        await wait_until(pilot, lambda: isinstance(app.screen, RewindScreen))
        screen = app.screen
        await pilot.press("enter", "3")
        await wait_until(pilot, lambda: screen.stage == "conflict")
        assert "changed outside agent-tui since then: util.py" in str(screen.question.render())
        await pilot.press("k")
        await wait_until(pilot, lambda: (demo_project / "app.py").read_bytes() == original)
        assert (demo_project / "util.py").read_text() == "edited by hand\n"

        await type_prompt(pilot, "/rewind")
        await wait_until(pilot, lambda: isinstance(app.screen, RewindScreen))
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, RewindScreen))


async def test_with_no_file_changed_the_one_choice_is_numbered_1(offline_options) -> None:
    app = AgentApp(offline_options(transcript=True), permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        await run_turn(app, pilot, "find the TODOs")
        await type_prompt(pilot, "/rewind")
        await wait_until(pilot, lambda: isinstance(app.screen, RewindScreen))
        screen = app.screen
        await pilot.press("enter")
        await wait_until(pilot, lambda: screen.stage == "choose")
        question = str(screen.question.render())
        assert "1  Restore conversation (no file changed since this point)" in question and "2  " not in question
        await pilot.press("1")
        await wait_until(pilot, lambda: not isinstance(app.screen, RewindScreen) and app.prompt_area.text)
        assert app.prompt_area.text == "find the TODOs" and app.session.messages == []
        assert app.prompt_area.cursor_location == app.prompt_area.document.end
