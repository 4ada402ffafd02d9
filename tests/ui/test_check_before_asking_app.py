"""An Edit that cannot apply fails at once in the app: no permission dialog comes up for it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakeapi import FakeAPI, reply, text, tool_use
from tui.agent import events as ev
from tui.agent.options import AgentOptions
from tui.agent.session import AgentSession
from tui.ui.app import AgentApp
from tui.ui.screens.permission_dialog import PermissionDialog

from .conftest import SIZE, wait_until


async def test_an_edit_of_an_unread_file_shows_no_dialog(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sandbox_off: object
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "app.py").write_text("x = 1\n")
    script = [
        reply(
            tool_use("Edit", {"file_path": "app.py", "old_string": "x = 1", "new_string": "x = 2"}),
            stop_reason="tool_use",
        ),
        reply(text("The edit was refused: I must read the file first."), stop_reason="end_turn"),
    ]
    with FakeAPI(script) as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
        options = AgentOptions(project_dir=project, interactive=True, transcript=False, sessions_dir=tmp_path / "s")
        session = AgentSession(options)
        finished: list[ev.ToolFinished] = []
        session.bus.subscribe(lambda e: finished.append(e) if isinstance(e, ev.ToolFinished) else None, inline=True)
        app = AgentApp(options, session=session, permission_grace_s=0)
        async with app.run_test(size=SIZE) as pilot:
            await app.submit_prompt("change x")
            dialogs: list[object] = []

            def done() -> bool:
                if isinstance(app.screen, PermissionDialog):
                    dialogs.append(app.screen)
                return len(api.message_requests) == 2 and not app.controller.busy

            await wait_until(pilot, done, 60)
            assert dialogs == []
            assert [e.status for e in finished] == ["error"]
            assert "has not been read yet" in finished[0].result_text
    assert (project / "app.py").read_text() == "x = 1\n"
