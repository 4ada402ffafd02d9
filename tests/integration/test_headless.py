"""`agent-tui -p` as a user runs it: a subprocess, the fake API or the offline model."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakeapi import FakeAPI
from tests.fakeapi.demo_project import make_demo_project
from tests.integration.test_loop_fakeapi import three_step_script


def run_cli(
    args: list[str], cwd: Path, env_extra: dict[str, str] | None = None, timeout: float = 60, stdin: str | None = None
) -> subprocess.CompletedProcess:
    """`agent-tui ARGS` in `cwd`; `stdin` is piped in (none: stdin is /dev/null, as a script's would be)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env.update(env_extra or {})
    extra: dict = {"input": stdin} if stdin is not None else {"stdin": subprocess.DEVNULL}
    return subprocess.run(
        [sys.executable, "-m", "tui.cli.main", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        **extra,
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    make_demo_project(tmp_path / "proj")
    return tmp_path / "proj"


def test_engine_import_and_headless_run_never_load_textual(project):
    code = (
        "import sys, tui.agent.session, tui.agent.loop.loop, tui.headless.run, tui.cli.main\n"
        "assert not [m for m in sys.modules if m.startswith('textual')], 'textual imported'\n"
        "from tui.cli.main import main\n"
        "rc = main(['-p', 'hello', '--offline', '--cwd', sys.argv[1]])\n"
        "assert not [m for m in sys.modules if m.startswith('textual')], 'textual imported by -p'\n"
        "sys.exit(rc)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code, str(project)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


def test_stream_json_against_the_fake_api(project):
    with FakeAPI(three_step_script(project)) as api:
        proc = run_cli(
            ["-p", "fix the TODO in a.py", "--output-format", "stream-json", "--permission-mode", "acceptEdits"],
            project,
            {"ANTHROPIC_BASE_URL": api.base_url, "ANTHROPIC_API_KEY": "sk-test"},
        )
        assert api.errors == []
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    assert lines[0]["type"] == "system" and lines[0]["subtype"] == "init"
    result = lines[-1]
    assert result["type"] == "result"
    assert result["stop_reason"] == "end_turn" and result["is_error"] is False
    assert result["num_turns"] == 3 and result["usage"]["output_tokens"] > 0
    assert {"total_cost_usd", "duration_ms"} <= result.keys()
    types = [line["type"] for line in lines]
    assert "stop_reason_handled" in types and "tool_finished" in types and "assistant" in types
    assert "# inputs are validated by the caller" in (project / "a.py").read_text()


def test_default_mode_denies_the_edit_with_a_clear_result(project):
    with FakeAPI(three_step_script(project)) as api:
        proc = run_cli(
            ["-p", "fix it", "--output-format", "json"],
            project,
            {"ANTHROPIC_BASE_URL": api.base_url, "ANTHROPIC_API_KEY": "sk-test"},
        )
        edit_result = api.message_requests[2].body["messages"][-1]["content"][0]
    assert proc.returncode == 0
    assert edit_result["is_error"] and "not granted" in edit_result["content"]
    assert "TODO: validate inputs" in (project / "a.py").read_text()
    result = json.loads(proc.stdout)
    assert result["permission_denials"][0]["tool_name"] == "Edit"


def test_offline_without_a_key_completes_a_turn_and_says_so(project):
    proc = run_cli(["-p", "find the TODOs and fix one"], project)
    assert proc.returncode == 0, proc.stderr
    assert "offline" in proc.stderr
    assert proc.stdout.strip()


def test_fatal_error_exits_non_zero_with_one_line_and_no_traceback(project):
    from tests.fakeapi.script import http_error

    with FakeAPI([http_error(401)]) as api:
        proc = run_cli(["-p", "hi"], project, {"ANTHROPIC_BASE_URL": api.base_url, "ANTHROPIC_API_KEY": "bad"})
    assert proc.returncode == 1
    assert "API key was rejected" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_sigint_interrupts_the_turn_and_exits_130(project):
    import signal
    import time

    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env["AGENT_TUI_OFFLINE_DELAY"] = "0.05"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tui.cli.main",
            "-p",
            "find the TODOs and fix one",
            "--offline",
            "--output-format",
            "stream-json",
        ],
        cwd=project,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    deadline = time.monotonic() + 30
    for line in proc.stdout:
        if json.loads(line)["type"] == "response_started" or time.monotonic() > deadline:
            break
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    result = json.loads(out.splitlines()[-1])
    assert result["type"] == "result" and result["stop_reason"] == "interrupted"
    assert "Traceback" not in err


def test_the_offline_model_costs_nothing_whatever_model_is_named(project):
    proc = run_cli(
        ["-p", "find the TODOs", "--offline", "--model", "claude-opus-5-5", "--output-format", "json"],
        project,
        {"AGENT_TUI_OFFLINE_DELAY": "0"},
    )
    result = json.loads(proc.stdout)
    assert result["total_cost_usd"] == 0 and sum(result["usage"].values()) > 0


def test_console_entry_exits_fast_with_everything_written(project, tmp_path):
    """`entry()` leaves with os._exit after -p: stdout, the transcript and the exit code must all be complete."""
    data = tmp_path / "data"
    env = {"XDG_DATA_HOME": str(data), "HOME": str(tmp_path / "home")}
    with FakeAPI(three_step_script(project)) as api:
        proc = run_cli(
            [
                "-p",
                "fix the TODO in a.py",
                "--output-format",
                "stream-json",
                "--include-partial-messages",
                "--permission-mode",
                "acceptEdits",
            ],
            project,
            {"ANTHROPIC_BASE_URL": api.base_url, "ANTHROPIC_API_KEY": "sk-test", **env},
        )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) > 20 and json.loads(lines[-1])["type"] == "result"  # nothing cut off at the end
    transcripts = [p for p in data.rglob("*.jsonl") if "checkpoints" not in p.parts]  # the session, not its checkpoints
    assert len(transcripts) == 1
    records = [json.loads(line) for line in transcripts[0].read_text().splitlines()]
    assert records[-1]["type"] == "event" and "num_iterations" in records[-1]["event"]  # TurnFinished, the last record


def test_console_entry_keeps_the_error_exit_code(project, tmp_path):
    from tests.fakeapi.script import http_error

    with FakeAPI([http_error(401)]) as api:
        proc = run_cli(
            ["-p", "hello"],
            project,
            {"ANTHROPIC_BASE_URL": api.base_url, "ANTHROPIC_API_KEY": "sk-bad", "HOME": str(tmp_path / "home")},
        )
    assert proc.returncode == 1
    assert "agent-tui: stopped" in proc.stderr and "Traceback" not in proc.stderr
