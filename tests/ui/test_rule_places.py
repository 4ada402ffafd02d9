""" "Always allow" names the file a rule goes to and offers the three Claude Code offers; each writes only that file."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

import pytest
from textual.widgets import OptionList

from tests.fakeapi import FakeAPI, reply, text, tool_use
from tui.agent.options import AgentOptions
from tui.agent.session import AgentSession
from tui.config.paths import user_settings_file
from tui.ui.app import AgentApp
from tui.ui.screens.permission_dialog import PermissionDialog

from .conftest import SIZE, wait_until


def _files(*roots: Path) -> dict[str, str]:
    return {str(p): p.read_text() for root in roots for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize(
    "downs, where",
    [(0, ".agent-tui/settings.local.toml"), (1, ".agent-tui/settings.toml"), (2, None)],
    ids=["project-local", "project-shared", "user"],
)
async def test_each_place_writes_that_file_and_nothing_else(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sandbox_off: object, downs: int, where: str | None
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    config = Path(os.environ["XDG_CONFIG_HOME"])
    script = [
        reply(tool_use("Bash", {"command": "make all || true"}), stop_reason="tool_use"),
        reply(text("made"), stop_reason="end_turn"),
    ]
    with FakeAPI(script) as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
        options = AgentOptions(project_dir=project, interactive=True, transcript=False, sessions_dir=tmp_path / "s")
        session = AgentSession(options)
        app = AgentApp(options, session=session, permission_grace_s=0)
        async with app.run_test(size=SIZE) as pilot:
            await app.submit_prompt("build it")
            await wait_until(
                pilot, lambda: isinstance(app.screen, PermissionDialog) and app.screen.armed, 60
            )  # armed: drawn, so it takes keys
            dialog = app.screen
            labels = [str(o.prompt) for o in dialog.query_one("#choices", OptionList).options]
            assert "save a rule to .agent-tui/settings.local.toml or another settings file" in labels[2]
            before = _files(project, config)
            await pilot.press("3")
            places = dialog.query_one("#rule-places", OptionList)
            assert places.display
            shown = [str(o.prompt)[2:] for o in places.options]
            assert [s.split(" (")[0] for s in shown] == [
                "save to .agent-tui/settings.local.toml",
                "save to .agent-tui/settings.toml",
                f"save to {user_settings_file()}".replace(str(Path.home()) + "/", "~/"),
            ]
            for _ in range(downs):
                await pilot.press("down")
            await pilot.press("enter")
            await wait_until(pilot, lambda: len(api.message_requests) == 2 and not app.controller.busy, 60)
    expected = project / where if where else user_settings_file()
    after = _files(project, config)
    changed = {path for path in after if before.get(path) != after[path]}
    assert changed == {str(expected)}, changed
    assert tomllib.loads(expected.read_text())["permissions"]["allow"] == ["Bash(make all *)"]
