"""Queued permission dialogs are looked at again when an answer adds a rule: those it allows close and run."""

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


def _two_agents_that_each_touch_a_file() -> list:
    agent = {"subagent_type": "general-purpose", "prompt": "make the file"}
    return [
        reply(
            tool_use("Agent", {**agent, "description": "one"}),
            tool_use("Agent", {**agent, "description": "two"}),
            stop_reason="tool_use",
        ),
        reply(tool_use("Bash", {"command": "touch one.txt"}), stop_reason="tool_use"),  # whichever agent asks first
        reply(tool_use("Bash", {"command": "touch two.txt"}), stop_reason="tool_use"),
        reply(text("made"), stop_reason="end_turn"),
        reply(text("made"), stop_reason="end_turn"),
        reply(text("Both files are made."), stop_reason="end_turn"),
    ]


@pytest.mark.parametrize("key, scope", [("2", "session"), ("3", "always")])
async def test_a_rule_from_one_answer_closes_the_queued_dialog_it_allows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sandbox_off: object, key: str, scope: str
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    with FakeAPI(_two_agents_that_each_touch_a_file()) as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
        options = AgentOptions(project_dir=project, interactive=True, transcript=False, sessions_dir=tmp_path / "s")
        session = AgentSession(options)
        resolved: list[ev.PermissionResolved] = []
        session.bus.subscribe(
            lambda e: resolved.append(e) if isinstance(e, ev.PermissionResolved) else None, inline=True
        )
        app = AgentApp(options, session=session, permission_grace_s=0)
        async with app.run_test(size=SIZE) as pilot:
            await app.submit_prompt("make two files with two agents")
            # armed: a dialog drops the keys that arrive before it is drawn
            await wait_until(
                pilot,
                lambda: isinstance(app.screen, PermissionDialog) and app.screen.queued == 1 and app.screen.armed,
                60,
            )
            first = app.screen.event.tool_use_id
            await pilot.press(key)
            if key == "3":  # "always allow" shows the rule it will save first; Enter saves it
                await pilot.pause()
                await pilot.press("enter")
            shown: set[str] = set()

            def finished() -> bool:
                if isinstance(app.screen, PermissionDialog):
                    shown.add(app.screen.event.tool_use_id)
                return not app.controller.busy

            await wait_until(pilot, finished, 60)
            assert shown <= {first}  # the queued dialog never came up
            assert (project / "one.txt").exists() and (project / "two.txt").exists()
            assert sorted(e.scope for e in resolved) == sorted([scope, "rule"]), [
                (e.tool_use_id, e.scope, e.rule) for e in resolved
            ]
            assert [e.rule for e in resolved if e.scope == "rule"] == ["Bash(touch *)"]
