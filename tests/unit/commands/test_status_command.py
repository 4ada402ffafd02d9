"""The `statusLine` setting and its command: Claude Code's JSON in, the first line out, made safe."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tui.agent.options import AgentOptions
from tui.agent.session import AgentSession
from tui.config.settings import load_settings
from tui.hooks import status_command
from tui.hooks.status_command import run_status_command, status_payload
from tui.tools.processes import read_stat

from .helpers import trust, write


def test_the_command_gets_the_json_and_its_first_line_is_shown_safely(tmp_path):
    session = AgentSession(AgentOptions(project_dir=tmp_path, transcript=False, model="claude-sonnet-5-5"))
    payload = status_payload(session)
    assert payload["model"]["id"] == "claude-sonnet-5-5" and payload["workspace"]["current_dir"] == str(tmp_path)
    assert {"session_id", "transcript_path", "cwd", "version", "cost", "context_window"} <= payload.keys()
    script = write(
        tmp_path / "s.py",
        "import json,sys\nd=json.load(sys.stdin)\n"
        "print('\\x1b[2J' + d['model']['display_name'] + ' in ' + d['cwd'])\nprint('line two')\n",
    )
    line = run_status_command(f"python3 {script}", payload, tmp_path)
    assert line == f"␛[2Jclaude-sonnet-5-5 in {tmp_path}"
    assert run_status_command("exit 3", payload, tmp_path) == ""
    assert run_status_command("true", payload, tmp_path) == ""  # never read stdin, printed nothing


def test_a_hanging_command_is_killed_with_its_children(tmp_path, monkeypatch):
    monkeypatch.setattr(status_command, "TIMEOUT_S", 0.5)
    pid_file = tmp_path / "child.pid"
    assert run_status_command(f"sleep 30 & echo $! > {pid_file}; wait", {}, tmp_path) == ""
    child = int(pid_file.read_text())
    try:
        os.kill(child, 0)
        alive = Path(f"/proc/{child}/stat").read_text().split()[2] != "Z"
    except (ProcessLookupError, FileNotFoundError):
        alive = False
    assert not alive


def test_the_setting_from_claude_json_and_toml_with_trust(tmp_path):
    project = tmp_path / "p"
    write(project / ".claude/settings.json", json.dumps({"statusLine": {"type": "command", "command": "echo hi"}}))
    untrusted = load_settings(project)
    assert untrusted.settings.status_line is None
    assert any("statusLine" in p and "ignored until you trust it" in p for p in untrusted.problems)
    trust(project)
    assert load_settings(project).settings.status_line == "echo hi"
    write(project / ".agent-tui/settings.toml", 'statusLine = { type = "prompt" }\n')
    broken = load_settings(project)
    assert any(".agent-tui/settings.toml:1: key `statusLine`: expected a table" in p for p in broken.problems)
    assert broken.settings.status_line == "echo hi"  # the good layer still counts


def test_a_command_that_leaves_a_child_holding_stdout_still_shows_its_line(tmp_path):
    pid_file = tmp_path / "child.pid"
    assert run_status_command(f"setsid sleep 30 & echo $! > {pid_file}; echo ready", {}, tmp_path) == "ready"
    info = read_stat(int(pid_file.read_text()))
    assert info is None or info.state == "Z"  # killed with the command's tree
