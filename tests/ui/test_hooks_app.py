"""Hooks in the app: under their tool call, in the conversation and the inspector, and the /hooks screen."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from rich.console import Console

from tui.ui.app import AgentApp
from tui.ui.commands import run_slash
from tui.ui.screens.hooks_screen import HooksScreen
from tui.ui.widgets.tool_panel import render_batch

from .conftest import SIZE, type_prompt, wait_until
from .tmux_driver import Tmux, needs_tmux


def _project_hooks(project: Path, log: Path, *, trusted: bool) -> None:
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(
        json.dumps(
            {
                "hooks": {
                    "PreToolUse": [
                        {
                            "matcher": "Read",
                            "hooks": [
                                {
                                    "type": "command",
                                    "command": (
                                        'echo \'{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}\''
                                    ),
                                }
                            ],
                        }
                    ],
                    "UserPromptSubmit": [
                        {"hooks": [{"type": "command", "command": f"echo prompt >> {log}; echo 'branch: main'"}]}
                    ],
                }
            }
        )
    )
    if trusted:
        user = Path(os.environ["XDG_CONFIG_HOME"]) / "agent-tui" / "settings.toml"
        user.parent.mkdir(parents=True, exist_ok=True)
        user.write_text(f"trusted_folders = [{json.dumps(str(project))}]\n")


async def test_hooks_show_under_their_call_and_can_be_turned_off_or_added_in_hooks(
    offline_options, demo_project, tmp_path
) -> None:
    log = tmp_path / "prompts.log"
    _project_hooks(demo_project, log, trusted=True)
    app = AgentApp(offline_options(), permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "What is in app.py?")
        tools = lambda: [t for b in app.tool_panel.batches for t in b.tools]  # noqa: E731
        await wait_until(
            pilot,
            lambda: not app.controller.busy and tools() and tools()[0].hooks and tools()[0].hooks[0].state == "success",
        )
        hook = tools()[0].hooks[0]
        assert (hook.hook_event, hook.decision) == ("PreToolUse", "allow")
        console = Console(width=60, record=True)
        console.print(render_batch(app.tool_panel.batches[0], time.time()))
        assert "↳ PreToolUse allow" in console.export_text()
        # the inspector keeps each hook's exact stdin and stdout with the API call
        await app.action_toggle_inspector()
        calls = app.inspector.model.calls
        hooks = [h for call in calls for h in call.hooks]
        pre = next(h for h in hooks if h["hook"] == "PreToolUse:Read")
        assert json.loads(pre["stdin"])["tool_name"] == "Read" and '"permissionDecision": "allow"' in pre["stdout"]
        assert next(h for h in hooks if h["hook"] == "UserPromptSubmit")["stdout"] == "branch: main\n"
        await app.action_toggle_inspector()

        await run_slash(app, "/hooks")
        await wait_until(pilot, lambda: isinstance(app.screen, HooksScreen) and app.screen._rows)
        screen = app.screen
        assert [(s.event, str(s.source), state) for s, state in screen._rows] == [
            ("PreToolUse", str(demo_project / ".claude/settings.json"), "on"),
            ("UserPromptSubmit", str(demo_project / ".claude/settings.json"), "on"),
        ]
        await pilot.press("down", "space")
        assert screen._rows[1][1] == "off for this run"
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, HooksScreen))
        await type_prompt(pilot, "What is in util.py?")
        await wait_until(pilot, lambda: not app.controller.busy and len(tools()) == 2)
        assert log.read_text() == "prompt\n"  # the second prompt ran no UserPromptSubmit hook

        # a hook added to a file during the run waits for review in /hooks
        (demo_project / ".claude" / "settings.local.json").write_text(
            json.dumps({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo stopped"}]}]}})
        )
        await run_slash(app, "/hooks")
        await wait_until(pilot, lambda: isinstance(app.screen, HooksScreen) and app.screen._rows)
        assert app.screen._rows[-1][1] == "new: press a"
        assert not any(s.event == "Stop" for s in app.session.options.hooks.hooks)
        await pilot.press("a")
        assert any(s.event == "Stop" for s in app.session.options.hooks.hooks)
        assert app.screen._rows[-1][1] == "on"


@needs_tmux
@pytest.mark.parametrize("trusted", [True, False])
def test_the_app_runs_project_hooks_only_in_a_trusted_folder(tmp_path: Path, demo_project: Path, trusted: bool) -> None:
    log = tmp_path / "prompts.log"
    _project_hooks(demo_project, log, trusted=trusted)
    home = tmp_path / "home"
    home.mkdir()
    term = Tmux(demo_project, home)
    try:
        term.start_app(
            "--offline", env={"XDG_CONFIG_HOME": os.environ["XDG_CONFIG_HOME"], "XDG_DATA_HOME": str(tmp_path / "data")}
        )
        term.keys("What is in app.py?", literal=True)
        term.keys("Enter")
        screen = term.wait_for(lambda s: "app.py" in s and "idle" in s and "Read" in s, "the answer")
        if trusted:
            screen = term.wait_for(lambda s: "↳ PreToolUse" in s and "branch: main" in s, "the hooks on screen")
            assert "UserPromptSubmit hook `echo prompt" in screen
            assert log.read_text() == "prompt\n"
        else:
            assert "UserPromptSubmit hook" not in screen and "↳ PreToolUse" not in screen
            assert not log.exists()
    finally:
        term.kill()


async def test_an_async_rewake_hook_exiting_2_starts_a_turn_in_the_app(offline_options, demo_project, tmp_path) -> None:
    flag = tmp_path / "woke"
    command = f"[ -e {flag} ] && exit 0; touch {flag}; echo lint failed >&2; exit 2"
    (demo_project / ".claude").mkdir()
    (demo_project / ".claude" / "settings.json").write_text(
        json.dumps({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": command, "asyncRewake": True}]}]}})
    )
    user = Path(os.environ["XDG_CONFIG_HOME"]) / "agent-tui" / "settings.toml"
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text(f"trusted_folders = [{json.dumps(str(demo_project))}]\n")
    app = AgentApp(offline_options(), permission_grace_s=0)

    def woken() -> bool:
        texts = [
            block.get("text", "")
            for m in app.session.messages
            if m["role"] == "user" and isinstance(m["content"], list)
            for block in m["content"]
        ]
        return any("Stop hook feedback:" in t and "lint failed" in t for t in texts)

    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "hello")
        await wait_until(pilot, lambda: woken() and not app.controller.busy, timeout=30)
    assert app.session.turn_count >= 2
