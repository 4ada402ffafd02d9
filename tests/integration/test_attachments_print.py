"""`agent-tui -p` with `@path` mentions as a user runs it: secrets and outside paths never reach the API."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fakeapi import FakeAPI
from tests.fakeapi.script import reply, text
from tests.integration.test_headless import run_cli

SECRET = "SECRET-KEY-0123"


@pytest.fixture
def setup(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A project and a home holding `~/.ssh/id_rsa` (in the default sandbox.deny_read) and `~/notes.txt`."""
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text(SECRET + "\n")
    (home / "notes.txt").write_text(f"notes {SECRET}\n")
    project = tmp_path / "proj"
    (project / ".claude" / "commands").mkdir(parents=True)
    (project / "app.py").write_text("print('app')\n")
    (project / "key").symlink_to(home / ".ssh" / "id_rsa")
    env = {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local/share"),
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "ANTHROPIC_API_KEY": "sk-test",
    }
    return project, env


def _run(project: Path, env: dict[str, str], *args: str) -> tuple[str, str]:
    with FakeAPI([reply(text("ok"), stop_reason="end_turn")]) as api:
        proc = run_cli(["-p", *args], project, {**env, "ANTHROPIC_BASE_URL": api.base_url})
        sent = json.dumps([r.body for r in api.message_requests])
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    return sent, proc.stderr


def test_print_mode_attaches_no_secret_and_no_outside_file(setup) -> None:
    project, env = setup
    sent, stderr = _run(project, env, "check @~/.ssh/id_rsa @key @~/notes.txt @app.py")
    assert SECRET not in sent and "print('app')" in sent
    lines = [line for line in stderr.splitlines() if "was not attached" in line]
    assert len(lines) == 3, stderr
    assert lines[0].startswith("agent-tui: @~/.ssh/id_rsa was not attached: ") and "sandbox.deny_read" in lines[0]
    assert lines[1].startswith("agent-tui: @key was not attached: ") and "sandbox.deny_read" in lines[1]
    assert "is outside the project, and -p cannot ask" in lines[2] and "--allowedTools" in lines[2]


def test_an_untrusted_folders_command_file_reaches_nothing_outside(setup) -> None:
    project, env = setup
    (project / ".claude" / "commands" / "peek.md").write_text("Peek at @~/notes.txt and @app.py\n")
    notes = Path(env["HOME"]) / "notes.txt"
    sent, stderr = _run(project, env, "/peek", "--allowedTools", f"Read(/{notes})")
    assert SECRET not in sent and "print('app')" in sent
    assert "@~/notes.txt was not attached" in stderr and "a folder you have not trusted" in stderr
