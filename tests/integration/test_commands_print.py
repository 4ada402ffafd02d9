"""`agent-tui -p "/name args"` as a user runs it: real command files, the fake API, trusted and untrusted."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakeapi import FakeAPI
from tests.fakeapi.script import reply, text, tool_use


def _write(path: Path, body: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(body, encoding="utf-8")


def _run(args: list[str], cwd: Path, api: FakeAPI, home: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env.update(ANTHROPIC_BASE_URL=api.base_url, ANTHROPIC_API_KEY="sk-test", CLAUDE_CONFIG_DIR=str(home))
    return subprocess.run(
        [sys.executable, "-m", "tui.cli.main", "-p", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    project = tmp_path / "proj"
    _write(project / "CHANGES.md", "- fixed the parser\n")
    _write(
        project / ".claude/commands/git/summary.md",
        "---\ndescription: Summarise the changes\nargument-hint: <audience>\n---\n"
        "Summarise for $ARGUMENTS. Shell says: !`echo from-shell`\n@CHANGES.md\n",
    )
    _write(project / ".claude/commands/broken.md", "---\n  stray\ndescription: [oops\n---\nx\n")
    _write(project / ".claude/skills/release/SKILL.md", "---\ndescription: Cut a release\n---\nRelease $0 now.\n")
    (project / ".claude/skills/halfdone").mkdir(parents=True)
    return project


def test_print_mode_expands_a_command_in_a_trusted_folder_and_the_skill_tool_loads_a_skill(project, tmp_path):
    from tui.config.settings import trust_folder

    trust_folder(project)
    script = [
        reply(tool_use("Skill", {"skill": "release", "args": "v2"}), stop_reason="tool_use"),
        reply(text("done"), stop_reason="end_turn"),
    ]
    with FakeAPI(script) as api:
        proc = _run(["/git:summary the team", "--output-format", "stream-json"], project, api, tmp_path / "home")
        bodies = [r.body for r in api.message_requests]
    assert proc.returncode == 0, proc.stderr
    first = bodies[0]["messages"][0]["content"][0]["text"]
    assert first.startswith("Summarise for the team. Shell says: from-shell\n@CHANGES.md")
    assert '<file path="CHANGES.md">\n- fixed the parser\n</file>' in first
    skill_tool = next(t for t in bodies[0]["tools"] if t["name"] == "Skill")
    assert "- release: Cut a release" in skill_tool["description"] and "git:summary" in skill_tool["description"]
    result = bodies[1]["messages"][-1]["content"][0]
    assert result["type"] == "tool_result" and "Release v2 now." in str(result["content"])
    # bad files: one sentence each on stderr, named by file; the run went on
    assert f"{project}/.claude/commands/broken.md has frontmatter that is not YAML" in proc.stderr
    assert f"{project}/.claude/skills/halfdone has no SKILL.md" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert json.loads(proc.stdout.splitlines()[-1])["is_error"] is False


def test_print_mode_refuses_a_project_shell_line_in_an_untrusted_folder(project, tmp_path):
    with FakeAPI([reply(text("never"), stop_reason="end_turn")]) as api:
        proc = _run(["/git:summary the team"], project, api, tmp_path / "home")
        assert api.message_requests == []  # nothing was sent
    assert proc.returncode == 1
    assert "/git:summary" in proc.stderr and "not trusted" in proc.stderr and "Traceback" not in proc.stderr
