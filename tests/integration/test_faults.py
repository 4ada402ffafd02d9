"""The fault matrix: each fault through a session and through `-p`, with a clear outcome and nothing
lost or duplicated. Every request the fake server receives must pass its validation.

Faults already covered session-side in test_loop_fakeapi.py are exercised here through `-p`
(in-process `main()`, plus a few real subprocesses run in parallel); the session-side tests
here cover what that file does not.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.fakeapi import FakeAPI
from tests.fakeapi.demo_project import make_demo_project
from tests.fakeapi.script import (
    drop,
    http_error,
    max_tokens_mid_tool_use,
    model_not_found,
    no_message_stop,
    pause_turn,
    refusal,
    reply,
    sse_error,
    stall,
    text,
    tool_use,
)
from tests.fakeapi.sse import render_reply
from tests.integration.helpers import make_session
from tui.agent.events import LoopStopped, RetryScheduled, ToolFinished
from tui.agent.history.resume import list_sessions, load_session
from tui.cli.main import main

TOOL_REPLY = reply(
    text("Reading both."),
    tool_use("Read", {"file_path": "a.py"}),
    tool_use("Read", {"file_path": "b.py"}),
    stop_reason="tool_use",
)


def events_in(r: Any) -> int:
    return len(render_reply(r, model="m", input_usage={"input_tokens": 1}).events)


@dataclass
class Fault:
    script: Callable[[], list]
    stop: str
    exit_code: int
    needle: str = ""  # in the stderr sentence (errors) or the final text (success)
    args: list[str] = field(default_factory=list)
    model: str = "claude-sonnet-5-5"
    settings: str = ""


FAULTS: dict[str, Fault] = {
    "overloaded-3x-then-ok": Fault(lambda: [http_error(529)] * 3 + [reply("recovered")], "end_turn", 0, "recovered"),
    "429-retry-after": Fault(
        lambda: [http_error(429, headers={"retry-after": "0.1"}), reply("after wait")], "end_turn", 0, "after wait"
    ),
    "500-should-retry-false": Fault(
        lambda: [http_error(500, headers={"x-should-retry": "false"})], "api_error", 1, "said not to retry"
    ),
    "sse-error-at-start": Fault(lambda: [sse_error(1), reply("clean")], "end_turn", 0, "clean"),
    "sse-error-mid-tool-use": Fault(
        lambda: [sse_error(events_in(TOOL_REPLY) - 6, reply=TOOL_REPLY), TOOL_REPLY, reply("both read")],
        "end_turn",
        0,
        "both read",
    ),
    "sse-error-at-end": Fault(
        lambda: [sse_error(events_in(reply("whole")) - 1, reply=reply("whole")), reply("whole")], "end_turn", 0, "whole"
    ),
    "dropped-connection": Fault(lambda: [drop(4), reply("reconnected")], "end_turn", 0, "reconnected"),
    "stalled-stream": Fault(
        lambda: [stall(3, seconds=3), reply("unstuck")],
        "end_turn",
        0,
        "unstuck",
        settings="stream_idle_timeout = 0.4\n",
    ),
    "no-message-stop": Fault(lambda: [no_message_stop(reply("half")), reply("complete")], "end_turn", 0, "complete"),
    "max-tokens-mid-tool-use": Fault(
        lambda: [max_tokens_mid_tool_use("Write", {"file_path": "x.txt", "content": "y" * 80})],
        "max_tokens",
        0,
        "cut by max_tokens",
        ["--permission-mode", "bypassPermissions"],
    ),
    "refusal": Fault(lambda: [refusal("I will", category="cyber")], "refusal", 1, "declined"),
    "pause-turn": Fault(lambda: [pause_turn(), reply("search finished")], "end_turn", 0, "search finished"),
    "401": Fault(lambda: [http_error(401)], "api_error", 1, "the API key was rejected"),
    "404-unknown-model": Fault(
        lambda: [model_not_found("claude-nope-9")], "api_error", 1, "claude-nope-9", model="claude-nope-9"
    ),
    "hanging-bash": Fault(
        lambda: [
            reply(tool_use("Bash", {"command": "sleep 30", "timeout": 400}), stop_reason="tool_use"),
            reply("the command hung, moving on"),
        ],
        "end_turn",
        0,
        "moving on",
        ["--permission-mode", "bypassPermissions"],
    ),
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_demo_project(tmp_path / "proj")


@pytest.fixture
def fast_retries(monkeypatch):
    """Keep retry-after but shrink exponential backoff (in-process -p has no flag for it)."""
    monkeypatch.setattr(
        "tui.agent.loop.loop.backoff_delay", lambda attempt, base, cap, ra: ra if ra is not None else 0.01
    )


def assert_history_clean(messages: list[dict]) -> None:
    """User turns never repeat (prompts merge) and no assistant message is stored twice.

    Two assistant messages in a row are right after pause_turn (the content goes back as is).
    """
    assistants = [json.dumps(m, sort_keys=True) for m in messages if m["role"] == "assistant"]
    assert len(assistants) == len(set(assistants)), "an assistant message was duplicated"
    assert not any(a["role"] == b["role"] == "user" for a, b in itertools.pairwise(messages))


# --- through -p --------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(FAULTS))
def test_fault_through_print_mode(name, project, monkeypatch, capfd, fast_retries):
    fault = FAULTS[name]
    if fault.settings:
        (project / ".agent-tui").mkdir(exist_ok=True)
        (project / ".agent-tui" / "settings.toml").write_text(fault.settings)
    with FakeAPI(fault.script()) as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
        code = main(["-p", "go", "--model", fault.model, "--cwd", str(project), *fault.args])
        assert api.errors == []
    out, err = capfd.readouterr()
    assert "Traceback" not in err and code == fault.exit_code, err
    if fault.exit_code:
        stopped = [line for line in err.splitlines() if line.startswith("agent-tui: stopped")]
        assert len(stopped) == 1 and f"({fault.stop})" in stopped[0]
        assert fault.needle.lower() in stopped[0].lower()
    elif fault.stop == "end_turn":
        assert fault.needle in out
    else:
        assert fault.needle in err
    saved = list_sessions(project)
    if saved:
        assert_history_clean(load_session(saved[0].path).messages)


def test_real_subprocesses_exit_with_one_sentence(project, tmp_path):
    """Two faults as a user runs them: separate processes, started together to keep this quick."""
    picked = ["401", "hanging-bash"]
    apis = {n: FakeAPI(FAULTS[n].script()) for n in picked}
    procs = {}
    try:
        for n in picked:
            fault = FAULTS[n]
            env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
            env.update(
                ANTHROPIC_BASE_URL=apis[n].base_url,
                ANTHROPIC_API_KEY="sk-test",
                XDG_DATA_HOME=str(tmp_path / f"data-{n}"),
            )
            procs[n] = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "tui.cli.main",
                    "-p",
                    "go",
                    "--model",
                    fault.model,
                    *fault.args,
                    "--cwd",
                    str(project),
                ],
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        for n, proc in procs.items():
            out, err = proc.communicate(timeout=60)
            fault = FAULTS[n]
            assert proc.returncode == fault.exit_code, (n, err)
            assert "Traceback" not in err
            if fault.exit_code:
                assert fault.needle.lower() in err.lower()
            else:
                assert fault.needle in out
            assert apis[n].errors == []
    finally:
        for proc in procs.values():
            if proc.poll() is None:
                proc.kill()
        for api in apis.values():
            api.stop()


# --- through a session (what test_loop_fakeapi.py does not cover) ------------------------


def test_overloaded_three_times_then_success(monkeypatch, project):
    with FakeAPI(FAULTS["overloaded-3x-then-ok"].script()) as api:
        session, rec = make_session(monkeypatch, api.base_url, project)
        session.run_turn("hi")
        assert api.errors == [] and len(api.message_requests) == 4
    assert [r.attempt for r in rec.of(RetryScheduled)] == [2, 3, 4]
    assert [m["role"] for m in session.messages] == ["user", "assistant"]


@pytest.mark.parametrize("name", ["sse-error-at-end", "sse-error-mid-tool-use"])
def test_stream_errors_late_in_the_stream_lose_and_duplicate_nothing(monkeypatch, project, name):
    with FakeAPI(FAULTS[name].script()) as api:
        session, rec = make_session(monkeypatch, api.base_url, project)
        session.run_turn("hi")
        assert api.errors == []
        first, second = api.message_requests[0].body, api.message_requests[1].body
    assert first["messages"] == second["messages"]  # the retry resent the same request
    assert rec.of(LoopStopped)[0].reason == "end_turn"
    assert session.last_assistant_text() == FAULTS[name].needle
    assert len(rec.of(ToolFinished)) == (2 if "tool" in name else 0)  # the cut tool calls never ran
    assert_history_clean(session.messages)


def test_unknown_model_names_the_model(monkeypatch, project):
    with FakeAPI([model_not_found("claude-nope-9")]) as api:
        session, rec = make_session(monkeypatch, api.base_url, project, model="claude-nope-9")
        session.run_turn("hi")
    stop = rec.of(LoopStopped)[0]
    assert stop.reason == "api_error" and "claude-nope-9" in stop.detail and "--model" in stop.detail


def test_hanging_bash_times_out_as_an_error_result_and_the_loop_goes_on(monkeypatch, project):
    with FakeAPI(FAULTS["hanging-bash"].script()) as api:
        session, rec = make_session(monkeypatch, api.base_url, project, permission_mode="bypassPermissions")
        session.run_turn("run it")
        assert api.errors == []
        result = api.message_requests[1].body["messages"][-1]["content"][0]
    assert result["is_error"] is True and "timed out" in json.dumps(result)
    assert rec.of(ToolFinished)[0].is_error and rec.of(LoopStopped)[0].reason == "end_turn"
