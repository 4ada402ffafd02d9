"""A refusal's advice is what actually lets the call run: followed to the letter, it works (`agent-tui -p`)."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from tests.fakeapi import FakeAPI
from tests.fakeapi.script import reply, tool_use
from tests.integration.test_headless import run_cli


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir()
    return {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local/share"),
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "ANTHROPIC_API_KEY": "sk-test",
    }


def _tool_result(project: Path, env: dict[str, str], call: dict, *flags: str) -> str:
    script = [reply(tool_use("Bash", call, id="b1"), stop_reason="tool_use"), reply("done")]
    with FakeAPI(script) as api:
        proc = run_cli(["-p", "go", *flags], project, {**env, "ANTHROPIC_BASE_URL": api.base_url})
        assert proc.returncode == 0, proc.stderr
        result = api.message_requests[1].body["messages"][-1]["content"][0]
    assert result["type"] == "tool_result"
    return str(result["content"])


def _flags(advice: str) -> list[str]:
    """The command-line flags an advice sentence names, split as a shell would."""
    return shlex.split(" ".join(re.findall(r"--[\w-]+ '[^']*'", advice)))


def test_leaving_the_sandbox_in_print_mode_is_refused_with_advice_that_works(tmp_path, env) -> None:
    from tui.sandbox.runtime import current

    if not current().supported():
        pytest.skip("no sandbox on this system: nothing asks to leave it")
    project = tmp_path / "proj"
    project.mkdir()
    call = {"command": "touch left-the-sandbox", "description": "mark", "dangerouslyDisableSandbox": True}
    refused = _tool_result(project, env, call)
    assert "was not granted" in refused and not (project / "left-the-sandbox").exists()
    assert "--permission-mode acceptEdits" not in refused and "bypassPermissions" in refused  # neither helps
    flags = _flags(refused)
    assert flags == ["--settings", json.dumps({"sandbox": {"enabled": False}}), "--allowedTools", "Bash(touch *)"]
    assert "was not granted" not in _tool_result(project, env, call, *flags)
    assert (project / "left-the-sandbox").exists()  # the advice, followed, ran it


def test_a_command_files_shell_line_blocked_by_a_deny_rule_does_not_suggest_allowed_tools(tmp_path, env) -> None:
    project = tmp_path / "proj"
    (project / ".claude" / "commands").mkdir(parents=True)
    (project / ".claude" / "commands" / "state.md").write_text(
        "---\nallowed-tools: Bash(git status:*)\n---\nState: !`git status`\n"
    )
    (project / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"deny": ["Bash(git status:*)"]}}))
    config = Path(env["XDG_CONFIG_HOME"]) / "agent-tui"
    config.mkdir(parents=True)
    (config / "settings.toml").write_text(f"trusted_folders = [{json.dumps(str(project))}]\n")
    proc = run_cli(["-p", "/state", "--offline"], project, env)
    assert proc.returncode == 1
    assert "is denied by the rule `Bash(git status:*)`" in proc.stderr
    assert "a deny rule wins over `allowed-tools`: remove that rule" in proc.stderr
    assert "Allow it in the file's `allowed-tools`" not in proc.stderr and "Traceback" not in proc.stderr
