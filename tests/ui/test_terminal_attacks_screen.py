"""The app with a hostile model and file: no view writes a raw control character to the terminal.

The real engine runs against the fake API; the model thinks, writes and reads a file full of
terminal attacks. What each view would write to the terminal (the compositor's full-screen
update, turned into bytes as the driver would) must hold no control character but the app's own
CSI sequences, and the attacks must be on screen visibly.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.attacks import ATTACKS, stray_controls
from tests.fakeapi import FakeAPI, reply, text, thinking, tool_use
from tui.agent.options import AgentOptions
from tui.agent.session import AgentSession
from tui.ui.app import AgentApp
from tui.ui.widgets.blocks import ThinkingBlock, ToolCallBlock

from .conftest import wait_until

#: tall enough to show the whole turn without scrolling
SIZE = (150, 160)


def screen_output(app: AgentApp) -> str:
    """What a full repaint of the current screen writes to the terminal (Textual's own full write: the app's
    terminal model would write only what changed since the last call)."""
    from textual._compositor import LayoutUpdate

    update = app.screen._compositor.render_update(full=True)
    return "".join(LayoutUpdate.render_segments(update, app.console))


@pytest.fixture
def hostile_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    project = tmp_path / "proj"
    project.mkdir()
    (project / "evil.txt").write_text(ATTACKS)
    script = [
        reply(
            thinking("thinking about " + ATTACKS),
            text("Reading it. " + ATTACKS),
            tool_use("Read", {"file_path": str(project / "evil.txt")}),
            stop_reason="tool_use",
        ),
        reply(text("The file says:\n\n" + ATTACKS), stop_reason="end_turn"),
    ]
    with FakeAPI(script) as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
        options = AgentOptions(
            project_dir=project, interactive=True, transcript=False, sessions_dir=tmp_path / "sessions"
        )
        yield AgentApp(options, session=AgentSession(options))


async def test_no_view_writes_a_raw_control_character(hostile_app: AgentApp) -> None:
    app = hostile_app
    async with app.run_test(size=SIZE) as pilot:
        await app.submit_prompt("show me evil.txt \x1b[2J")
        await wait_until(pilot, lambda: not app.controller.busy, timeout=60)
        for block in app.query(ToolCallBlock):
            block.collapsed = False
        for block in app.query(ThinkingBlock):
            block.collapsed = False
        # unfolding is drawn on later frames: wait for all four copies rather than a fixed pause (flaky under load)
        await wait_until(pilot, lambda: screen_output(app).count("PWNED-TITLE2") >= 4, timeout=30)
        conversation = screen_output(app)
        assert stray_controls(conversation) == []
        assert conversation.count("PWNED-TITLE2") >= 4  # thinking, text, tool result, final reply: all shown
        assert "␛[?1049l" in conversation and "\\x9b2J" in conversation and "\\u202e" in conversation

        await pilot.press("f2")
        inspector = app.query_one("Inspector")
        for view in ("request", "response", "sse", "diff"):
            inspector.show_view(view)  # type: ignore[attr-defined]
            await pilot.pause()
            await pilot.pause()
            assert stray_controls(screen_output(app)) == [], view


@pytest.mark.usefixtures("sandbox_off")  # a contained command needs no dialog; this one is about the dialog
async def test_the_permission_dialog_shows_bidi_and_escapes_in_a_command(tmp_path: Path, monkeypatch) -> None:
    from tui.ui.screens.permission_dialog import PermissionDialog

    project = tmp_path / "proj"
    project.mkdir()
    command = "touch safe \u202e# txt.exe\u202c; printf '\x1b]0;PWNED\x07' > out"
    script = [
        reply(text("Running it."), tool_use("Bash", {"command": command}), stop_reason="tool_use"),
        reply(text("Done."), stop_reason="end_turn"),
    ]
    with FakeAPI(script) as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
        options = AgentOptions(
            project_dir=project, interactive=True, transcript=False, sessions_dir=tmp_path / "sessions"
        )
        app = AgentApp(options, session=AgentSession(options))
        async with app.run_test(size=(120, 40)) as pilot:
            await app.submit_prompt("run it")
            await wait_until(pilot, lambda: isinstance(app.screen, PermissionDialog), timeout=60)
            await pilot.pause()
            await pilot.pause()
            dialog = screen_output(app)
            assert stray_controls(dialog) == []
            assert "\\u202e# txt.exe\\u202c" in dialog and "␛]0;PWNED␇" in dialog  # what runs, as it runs
            app.session.cancel()
            await wait_until(pilot, lambda: not app.controller.busy, timeout=60)
