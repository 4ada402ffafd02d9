"""Hooks through the command line: stream-json hook lines as Claude Code's, and no cost without hooks."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.fakeapi import FakeAPI
from tests.fakeapi.script import reply
from tests.integration.test_hooks import hook, write_project
from tui.cli.main import main

REPO = Path(__file__).resolve().parents[2]


def _lines(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def test_stream_json_hook_lines_only_with_include_hook_events(monkeypatch, tmp_path, capsys):
    write_project(tmp_path, hook("UserPromptSubmit", stdout="ctx"), hook("Stop", exit=1, stderr="lint\x1b[2J"))
    with FakeAPI([reply("One."), reply("Two.")]) as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
        args = ["-p", "hi", "--cwd", str(tmp_path), "--output-format", "stream-json"]
        assert main([*args, "--include-hook-events"]) == 0
        with_flag = capsys.readouterr()
        assert main(args) == 0
        without = capsys.readouterr()
    hooks = [line for line in _lines(with_flag.out) if line.get("subtype", "").startswith("hook_")]
    assert [(h["subtype"], h["hook_name"]) for h in hooks] == [
        ("hook_started", "UserPromptSubmit"),
        ("hook_response", "UserPromptSubmit"),
        ("hook_started", "Stop"),
        ("hook_response", "Stop"),
    ]
    response = hooks[1]
    assert list(response) == [
        "type",
        "subtype",
        "hook_id",
        "hook_name",
        "hook_event",
        "output",
        "stdout",
        "stderr",
        "exit_code",
        "outcome",
        "uuid",
        "session_id",
    ]  # Claude Code's keys, in its order
    assert (response["stdout"], response["exit_code"], response["outcome"]) == ("ctx\n", 0, "success")
    assert (hooks[3]["exit_code"], hooks[3]["outcome"]) == (1, "error")
    assert hooks[0]["hook_id"] == response["hook_id"]
    assert not any(
        line.get("subtype", "").startswith("hook_") or line["type"].startswith("hook") for line in _lines(without.out)
    )
    # the non-blocking error reaches the user as one sentence on stderr, its escape made visible
    assert "Stop hook `" in without.err and "failed with exit code 1: lint␛[2J" in without.err
    assert "\x1b" not in without.err


#: the modules that run hooks (tui.hooks also holds the custom commands and skills, which have their own budget)
HOOK_MODULES = [
    "tui.agent.hook_points",
    "tui.hooks.config",
    "tui.hooks.matcher",
    "tui.hooks.outcome",
    "tui.hooks.runner",
    "tui.hooks.stream",
    "tui.ui.hook_view",
]


def test_without_hooks_nothing_of_the_hooks_package_is_imported(tmp_path):
    code = (
        "import sys; from tui.cli.main import main; main(['-p', 'hi', '--offline', '--cwd', sys.argv[1]]); "
        f"print(sorted(m for m in sys.modules if m in {HOOK_MODULES!r}))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=120, cwd=REPO
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "[]"


def test_hooks_given_with_settings_run_and_are_named_by_the_flag(monkeypatch, tmp_path, capsys):
    flag = json.dumps(
        {
            "hooks": {
                "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo from-flag"}]}],
                "Stop": [{"hooks": [{"type": "command", "command": "exit 1"}]}],
            }
        }
    )
    with FakeAPI([reply("One.")]) as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
        code = main(
            [
                "-p",
                "hi",
                "--cwd",
                str(tmp_path),
                "--settings",
                flag,
                "--output-format",
                "stream-json",
                "--include-hook-events",
            ]
        )
        first = api.message_requests[0].body
    assert code == 0
    assert "UserPromptSubmit hook success: from-flag" in json.dumps(first["messages"][0])
    assert "Stop hook `exit 1` (from --settings) failed with exit code 1" in capsys.readouterr().err
