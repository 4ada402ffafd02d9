"""A new user's first commands: bad flag values, rule lists before the prompt, no terminal, --verbose."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.test_headless import run_cli


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "README.md").write_text("# Demo\n")
    (root / "a.py").write_text("x = 1  # TODO: later\n")
    return root


@pytest.mark.parametrize(
    ("args", "flag"),
    [
        (["--max-turns", "0"], "--max-turns"),
        (["--max-turns", "-3"], "--max-turns"),
        (["--max-budget-tokens", "-5"], "--max-budget-tokens"),
        (["--max-tokens", "0"], "--max-tokens"),
        (["--permission-mode", "yolo"], "--permission-mode"),
        (["--settings", "missing-settings.json"], "--settings"),
        (["--settings", "{not json"], "--settings"),
    ],
)
def test_a_bad_flag_value_is_a_usage_error_naming_the_flag(project: Path, args: list[str], flag: str) -> None:
    proc = run_cli(["-p", "hello", "--offline", *args], project)
    assert proc.returncode == 2
    assert f"argument {flag}:" in proc.stderr and "Traceback" not in proc.stderr
    assert proc.stdout == ""


def test_settings_file_and_json_string_are_layered_on_top(project: Path) -> None:
    (project / "extra.json").write_text(json.dumps({"max_turns": 1}))
    for value in ("extra.json", '{"max_turns": 1}'):
        proc = run_cli(
            ["-p", "find the TODOs and fix one", "--offline", "--settings", value, "--output-format", "json"], project
        )
        result = json.loads(proc.stdout)
        assert result["stop_reason"] == "max_turns" and result["num_turns"] == 1, (value, proc.stderr)
        assert "the limit of 1 model call (" in result["detail"]
    proc = run_cli(["-p", "hello", "--offline", "--settings", '{"max_turns": "many"}'], project)
    assert proc.returncode == 0 and "--settings" in proc.stderr and "max_turns" in proc.stderr
    assert "agent-tui-settings-" not in proc.stderr


def test_allowed_tools_does_not_swallow_the_prompt(project: Path) -> None:
    proc = run_cli(
        ["-p", "--allowedTools", "Edit", "Bash(git *)", "find the TODOs", "--offline", "--output-format", "json"],
        project,
        timeout=90,
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert "TODO/FIXME line" in result["result"]
    proc = run_cli(["-p", "--disallowedTools", "Bash", "--", "Refactor", "--offline"], project)
    assert proc.returncode == 0, proc.stderr


def test_no_prompt_says_so_and_names_the_rules_that_took_it(project: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "tui.cli.main", "-p", "--offline", "--allowedTools", "Edit", "Read"],
        cwd=project,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    assert "-p needs a prompt" in proc.stderr and "(Edit, Read)" in proc.stderr and "after --" in proc.stderr


def test_the_prompt_comes_from_stdin_in_print_mode(project: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "tui.cli.main", "-p", "--offline"],
        cwd=project,
        input="find the TODOs\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Found **1 TODO/FIXME line** in 1 file" in proc.stdout


def _start_app(project: Path, **streams: object) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tui.cli.main", "--offline", "hello"],
        cwd=project,
        capture_output="stdout" not in streams,
        timeout=30,
        **streams,
    )  # type: ignore[call-overload]


def test_the_app_without_a_terminal_exits_at_once_pointing_to_p(project: Path) -> None:
    proc = _start_app(project, stdin=subprocess.PIPE)
    assert proc.returncode == 2
    assert b"\x1b" not in proc.stdout + proc.stderr and proc.stdout == b""
    assert b"-p" in proc.stderr and proc.stderr.count(b"\n") == 1


def test_the_app_without_a_terminal_says_the_piped_text_was_not_read(project: Path) -> None:
    proc = _start_app(project, input=b"a whole file of text\n")
    assert proc.returncode == 2
    lines = proc.stderr.decode().splitlines()
    assert len(lines) == 2 and "use -p" in lines[0]
    assert lines[1].startswith("agent-tui: stdin is piped and was not read") and 'agent-tui -p "explain"' in lines[1]


def test_piped_stdin_goes_before_the_prompt_in_print_mode(project: Path) -> None:
    from tests.integration.test_headless import run_cli

    proc = run_cli(
        ["-p", "--offline", "--output-format", "stream-json", "explain this"],
        project,
        stdin="def add(a, b):\n    return a + b\n",
    )
    assert proc.returncode == 0, proc.stderr
    started = next(json.loads(line) for line in proc.stdout.splitlines() if '"turn_started"' in line)
    assert started["prompt"] == "def add(a, b):\n    return a + b\n\nexplain this"


def test_the_app_with_stdin_piped_and_a_terminal_for_stdout_writes_no_escape_codes(project: Path) -> None:
    controller, terminal = os.openpty()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "tui.cli.main", "--offline"],
            cwd=project,
            input=b"hello\n",
            stdout=terminal,
            stderr=subprocess.PIPE,
            timeout=30,
        )
        os.close(terminal)
        written = b""
        while True:
            try:
                chunk = os.read(controller, 4096)
            except OSError:
                break
            if not chunk:
                break
            written += chunk
    finally:
        os.close(controller)
    assert proc.returncode == 2
    assert written == b"" and b"\x1b" not in proc.stderr and b"use -p" in proc.stderr


def test_verbose_is_accepted_and_adds_detail(project: Path) -> None:
    stream = run_cli(["-p", "find the TODOs", "--offline", "--output-format", "stream-json", "--verbose"], project)
    assert stream.returncode == 0, stream.stderr
    assert json.loads(stream.stdout.splitlines()[-1])["type"] == "result"
    text = run_cli(["-p", "find the TODOs", "--offline", "--verbose"], project)
    assert "agent-tui: tool Glob **/*: ok" in text.stderr and "(count): ok" in text.stderr
    whole = json.loads(
        run_cli(["-p", "find the TODOs", "--offline", "--output-format", "json", "--verbose"], project).stdout
    )
    assert isinstance(whole, list) and whole[0]["subtype"] == "init" and whole[-1]["type"] == "result"
    assert "--verbose" in run_cli(["--help"], project).stdout


def test_a_tool_input_that_is_no_object_prints_no_pydantic_warning(project: Path) -> None:
    from tests.fakeapi import FakeAPI
    from tests.fakeapi import script as s

    steps = [s.reply(s.ToolUse("Read", {}, None, raw_json="[1, 2]"), stop_reason="tool_use"), s.reply("done")]
    with FakeAPI(steps) as api:
        proc = run_cli(
            ["-p", "read it"],
            project,
            {"ANTHROPIC_BASE_URL": api.base_url, "ANTHROPIC_API_KEY": "sk-test", "PYTHONWARNINGS": "always"},
        )
    assert proc.returncode == 0 and "done" in proc.stdout
    assert "Warning" not in proc.stderr and "Traceback" not in proc.stderr, proc.stderr


def test_one_attempt_reads_as_one_attempt(project: Path) -> None:
    from tests.fakeapi import FakeAPI
    from tests.fakeapi import script as s

    (project / ".agent-tui").mkdir()
    (project / ".agent-tui" / "settings.toml").write_text("max_retries = 0\n")
    with FakeAPI([s.http_error(529)]) as api:
        proc = run_cli(["-p", "hello"], project, {"ANTHROPIC_BASE_URL": api.base_url, "ANTHROPIC_API_KEY": "sk-test"})
    assert proc.returncode == 1
    assert "Gave up after 1 attempt:" in proc.stderr


def test_the_app_with_a_terminal_for_stdin_and_stdout_piped_exits_at_once(project: Path) -> None:
    controller, terminal = os.openpty()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "tui.cli.main", "--offline"],
            cwd=project,
            stdin=terminal,
            capture_output=True,
            timeout=30,
        )
    finally:
        os.close(terminal)
        os.close(controller)
    assert proc.returncode == 2 and proc.stdout == b""
    assert b"\x1b" not in proc.stderr and b"use -p" in proc.stderr


def test_help_lists_the_subcommands_and_each_runs_by_its_name(project: Path) -> None:
    proc = run_cli(["--help"], project)
    assert proc.returncode == 0
    assert "subcommands" in proc.stdout and "agent-tui mcp" in proc.stdout and "agent-tui replay" in proc.stdout
    from tui.cli.parser import SUBCOMMANDS

    assert all(f"agent-tui {name}" in proc.stdout for name in SUBCOMMANDS)
    for name in SUBCOMMANDS:
        sub = run_cli([name, "--help"], project)
        assert sub.returncode == 0 and f"usage: agent-tui {name}" in sub.stdout
