"""`agent-tui replay`: an app session and a -p session play again in the app; the fake API sees no request."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.fakeapi import FakeAPI
from tests.fakeapi.script import reply, text, tool_use
from tests.integration.test_headless import run_cli
from tui.agent.events import BlockDelta, TurnStarted
from tui.agent.events.bus import EventBus
from tui.agent.history.replay import Player, ReplayError, load_events
from tui.ui.app import AgentApp
from tui.ui.replay_app import ReplayApp, parse_speed, replay_target
from tui.ui.replay_app import main as replay_main
from tui.ui.widgets.blocks import UserPrompt

from .conftest import SIZE, type_prompt, wait_until


def script(answer: str) -> list:
    return [reply(text("Looking."), tool_use("Read", {"file_path": "app.py"}), stop_reason="tool_use"), reply(answer)]


async def play(options, path: Path, expected: str) -> None:
    assert load_events(path)[1] == 0  # nothing skipped
    app = ReplayApp(options, path, speed=0.0, title=path.stem)  # read after the first frame, as the CLI does
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.player is not None and app.player.done, timeout=30)
        await wait_until(
            pilot,
            lambda: expected in " ".join(str(getattr(w, "source", "")) for w in app.query("FrozenMarkdown, LiveReply")),
        )
        assert "read app.py" in str(app.query_one(UserPrompt).render())
        await type_prompt(pilot, "do something")  # refused: a replay sends nothing
        assert app.session.turn_count == 0


async def test_app_and_print_sessions_replay_without_a_request(
    offline_options, demo_project, tmp_path, monkeypatch
) -> None:
    data = tmp_path / "data"
    sessions = data / "agent-tui" / "sessions"
    with FakeAPI(script("answer from the app") + script("answer from print mode")) as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
        options = offline_options(
            offline=False,
            transcript=True,
            sessions_dir=sessions,
            model="claude-sonnet-5-5",
            permission_mode="bypassPermissions",
        )
        recorder = AgentApp(options, permission_grace_s=0)
        async with recorder.run_test(size=SIZE) as pilot:
            await type_prompt(pilot, "read app.py")
            await wait_until(pilot, lambda: recorder.session.turn_count == 1 and not recorder.controller.busy, 30)
            app_file = recorder.session.transcript_path
        done = run_cli(
            ["-p", "--output-format", "json", "--permission-mode", "bypassPermissions", "read app.py"],
            demo_project,
            {
                "XDG_DATA_HOME": str(data),
                "HOME": str(tmp_path),
                "ANTHROPIC_BASE_URL": api.base_url,
                "ANTHROPIC_API_KEY": "sk-test",
            },
        )
        assert done.returncode == 0, done.stderr
        print_file = next(sessions.rglob(f"{json.loads(done.stdout)['session_id']}.jsonl"))
        sent = len(api.requests)
        assert sent == 4

        replay_options = offline_options(sessions_dir=sessions)
        assert replay_target(replay_options, None) == print_file  # no argument: the project's newest
        await play(replay_options, app_file, "answer from the app")
        await play(replay_options, print_file, "answer from print mode")
        assert len(api.requests) == sent  # nothing reached the API


def test_pause_step_and_speeds() -> None:
    events = [
        TurnStarted(turn_id=1, prompt="p"),
        *[BlockDelta(iteration=1, index=0, delta_type="text_delta", text=str(n)) for n in range(3)],
    ]
    bus = EventBus()
    seen: list = []
    arrived = threading.Event()
    bus.subscribe(lambda e: (seen.append(e), arrived.set()), inline=True)
    player = Player(events, bus, speed=1.0)
    player.toggle_pause()
    player.start()
    player.step()
    assert arrived.wait(5) and seen == events[:1]
    assert [player.change_speed(1) for _ in range(4)] == [4.0, 16.0, 0.0, 0.0]
    assert player.change_speed(-1) == 16.0
    player.change_speed(1)
    player.toggle_pause()
    player.thread.join(5)
    assert seen == events and player.done
    assert parse_speed("4x") == 4.0 and parse_speed("instant") == 0.0


def test_bad_input_is_one_sentence(tmp_path, capsys, demo_project) -> None:
    base = tmp_path / "home"
    env_data = base / ".local" / "share"
    os.environ["XDG_DATA_HOME"] = str(env_data)
    try:
        folder = (
            env_data / "agent-tui" / "sessions" / "projects" / str(demo_project.resolve()).strip("/").replace("/", "-")
        )
        folder.mkdir(parents=True)
        header = {"type": "session", "session_id": "x", "project_dir": str(demo_project), "model": "m"}
        message = {"type": "message", "message": {"role": "user", "content": "an old prompt"}}
        for name in ("20260101-aaa", "20260101-aab"):
            (folder / f"{name}.jsonl").write_text(
                json.dumps({**header, "session_id": name}) + "\n" + json.dumps(message) + "\n"
            )
        assert replay_main(["2026", "--cwd", str(demo_project)]) == 2
        assert "'2026' matches 2 sessions; give more of the id." in capsys.readouterr().err
        assert replay_main(["20260101-aaa", "--cwd", str(demo_project)]) == 2  # recorded without events
        assert "holds no recorded turn to replay" in capsys.readouterr().err
        with pytest.raises(ReplayError, match="Could not read the session file"):
            load_events(folder / "missing.jsonl")
    finally:
        del os.environ["XDG_DATA_HOME"]


def test_replay_without_a_terminal_refuses_in_one_sentence(demo_project, tmp_path) -> None:
    env = {"XDG_DATA_HOME": str(tmp_path / "data"), "HOME": str(tmp_path)}
    recorded = run_cli(["-p", "--offline", "read app.py"], demo_project, env)
    assert recorded.returncode == 0, recorded.stderr
    [session] = (tmp_path / "data").rglob("*.jsonl")
    done = subprocess.run(
        [sys.executable, "-m", "tui.cli.main", "replay", "--speed", "instant"],
        cwd=demo_project,
        env={**os.environ, **env},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=30,
    )  # main drew to stderr until killed
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (
        f"agent-tui: replay plays the session in the full-screen app, which needs a terminal (stdin and "
        f"stdout must be a TTY); run it in a terminal, or read the recorded session itself: {session}\n"
    )


async def test_a_recording_cut_mid_record_stops_the_running_tool_and_says_so(
    offline_options, demo_project, tmp_path
) -> None:
    data = tmp_path / "data"
    with FakeAPI(script("never reached in the cut file")) as api:
        done = run_cli(
            ["-p", "--output-format", "json", "--permission-mode", "bypassPermissions", "read app.py"],
            demo_project,
            {
                "XDG_DATA_HOME": str(data),
                "HOME": str(tmp_path),
                "ANTHROPIC_BASE_URL": api.base_url,
                "ANTHROPIC_API_KEY": "sk-test",
            },
        )
    assert done.returncode == 0, done.stderr
    recorded = next(data.rglob(f"{json.loads(done.stdout)['session_id']}.jsonl"))
    lines = recorded.read_text().splitlines(keepends=True)
    started = next(i for i, line in enumerate(lines) if '"type": "ToolStarted"' in line)
    cut = tmp_path / "cut.jsonl"  # everything up to the tool's start, then half a record: a writer killed mid-line
    cut.write_text("".join(lines[: started + 1]) + lines[started + 1][: len(lines[started + 1]) // 2])
    events, skipped = load_events(cut)
    assert skipped == 1
    app = ReplayApp(offline_options(), events, speed=0.0, title="cut")
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.player is not None and app.player.done, timeout=30)
        tools = lambda: [t.state for batch in app.tool_panel.batches for t in batch.tools]  # noqa: E731
        await wait_until(pilot, lambda: tools() == ["interrupted"])  # the tool ran when the recording stopped
        await wait_until(pilot, lambda: not app.controller.busy and app.tool_panel._timer is None)  # its timer stops
        markers = " ".join(str(m.render()) for m in app.query("MarkerLine"))
        assert "The recording ends here: the session file stops in the middle of this turn." in markers
