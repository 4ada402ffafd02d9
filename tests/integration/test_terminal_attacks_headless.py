"""`agent-tui -p` with a model that reads and repeats a file full of terminal attacks: text mode prints
them visibly, never raw; json and stream-json keep the exact characters (escaped by JSON)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.attacks import ATTACKS, raw_controls
from tests.fakeapi import FakeAPI, reply, text, thinking, tool_use
from tests.integration.test_headless import run_cli


@pytest.fixture
def hostile_project(tmp_path: Path) -> Path:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "evil.txt").write_text(ATTACKS)
    return project


def attack_script(project: Path) -> list:
    return [
        reply(
            thinking("thinking about " + ATTACKS),
            text("Reading it. " + ATTACKS),
            tool_use("Read", {"file_path": str(project / "evil.txt")}),
            stop_reason="tool_use",
        ),
        reply(text("The file says:\n\n" + ATTACKS), stop_reason="end_turn"),
    ]


def run_against_attacks(project: Path, fmt: str) -> tuple[str, str, FakeAPI]:
    with FakeAPI(attack_script(project)) as api:
        proc = run_cli(
            ["-p", "show me evil.txt", "--output-format", fmt],
            project,
            {"ANTHROPIC_BASE_URL": api.base_url, "ANTHROPIC_API_KEY": "sk-test"},
        )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout, proc.stderr, api


def test_text_mode_prints_the_attacks_visibly_and_no_control_byte(hostile_project: Path) -> None:
    out, err, _ = run_against_attacks(hostile_project, "text")
    assert raw_controls(out) == [] and raw_controls(err) == []
    assert "␛]0;PWNED-TITLE␇" in out and "␛[?1049l" in out and "\\x9b2J" in out  # shown, not dropped
    assert "shown␍HIDDEN" in out and "\\u202e" in out


def test_stream_json_keeps_the_exact_characters(hostile_project: Path) -> None:
    out, _, api = run_against_attacks(hostile_project, "stream-json")
    assert "\x1b" not in out and "\x07" not in out  # JSON escapes C0 controls on the wire
    lines = [json.loads(line) for line in out.splitlines()]
    assistant = [m["message"] for m in lines if m["type"] == "assistant"]
    assert assistant[-1]["content"][0]["text"] == "The file says:\n\n" + ATTACKS
    assert assistant[0]["content"][0]["thinking"] == "thinking about " + ATTACKS
    result_block = next(m for m in lines if m["type"] == "user")["message"]["content"][0]
    for line in ATTACKS.splitlines():
        assert line in result_block["content"]  # the Read result as the model received it
    assert lines[-1]["result"] == "The file says:\n\n" + ATTACKS
    sent = api.message_requests[1].body["messages"][-1]["content"][0]["content"]
    assert sent == result_block["content"]  # and the model got exactly those characters


def test_json_result_keeps_the_exact_characters(hostile_project: Path) -> None:
    out, _, _ = run_against_attacks(hostile_project, "json")
    assert json.loads(out)["result"] == "The file says:\n\n" + ATTACKS


def test_a_settings_problem_quoting_the_file_is_printed_visibly(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    (project / ".agent-tui").mkdir(parents=True)
    (project / ".agent-tui/settings.toml").write_text('"evil\\u001b]0;PWNED\\u0007key" = 1\n')
    proc = run_cli(["-p", "hi", "--offline"], project, {"HOME": str(tmp_path / "home")})
    assert "PWNED" in proc.stderr and "␛]0;PWNED␇" in proc.stderr
    assert raw_controls(proc.stderr) == []
