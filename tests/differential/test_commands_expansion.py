"""Differential: a custom command or skill expands to the same prompt in Claude Code and in agent-tui.

Both CLIs run `-p "/name args"` in the same trusted project against the fake API; the text the
command stands for (Claude Code sends it as the block after its `<command-message>` block) must be
identical, and every entry agent-tui lists to the Skill tool must be in Claude Code's listing.
Out of the default run: `.venv/bin/python -m pytest -m differential tests/differential`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

from tests.fakeapi import FakeAPI, reply
from tui.hooks.skills import LISTING_HEADER

from .harness import REPO, find_or_install_claude

pytestmark = [pytest.mark.differential, pytest.mark.timeout(1200)]

FILES = {
    ".claude/commands/git/summary.md": "---\ndescription: Summarise\nallowed-tools: Bash(echo:*)\n---\n"
    "A=$ARGUMENTS|0=$0|1=$1|2=$2|AI=$ARGUMENTS[1]|esc=\\$1\nShell: !`echo from-shell`\n",
    ".claude/commands/plain.md": "---\ndescription: p\n---\n\nJust do it\n",
    ".claude/commands/nodesc.md": "First line is the description\nmore\n",
    ".claude/skills/rel/SKILL.md": "---\ndescription: Cut a release\n---\nRelease $0 from ${CLAUDE_SKILL_DIR}\n",
}
PROMPTS = ['/git:summary a "b c" d', "/plain some args", "/rel 2.0 x", "/nodesc"]


def _run(who: str, exe: str, prompt: str, root: Path) -> list[dict[str, Any]]:
    project, home = root / "proj", root / f"home-{who}"
    home.mkdir(exist_ok=True)
    bodies: list[dict[str, Any]] = []
    api = FakeAPI(lambda body: (bodies.append(body), reply("ok"))[1])
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CLAUDE", "AGENT_TUI"))}
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / "config"),
        XDG_DATA_HOME=str(home / "data"),
        ANTHROPIC_BASE_URL=api.base_url,
        ANTHROPIC_API_KEY="sk-test",
    )
    if who == "claude":
        env.update(
            CLAUDE_CONFIG_DIR=str(home),
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
            DISABLE_TELEMETRY="1",
            DISABLE_AUTOUPDATER="1",
        )
        (home / ".claude.json").write_text(
            json.dumps(
                {
                    "hasCompletedOnboarding": True,
                    "customApiKeyResponses": {"approved": ["sk-test"], "rejected": []},
                    "projects": {str(project): {"hasTrustDialogAccepted": True}},
                }
            )
        )
        argv = [exe, "-p", prompt]
    else:
        (home / "config/agent-tui").mkdir(parents=True, exist_ok=True)
        (home / "config/agent-tui/settings.toml").write_text(f"trusted_folders = [{json.dumps(str(project))}]\n")
        env.update(PYTHONPATH=str(REPO), CLAUDE_CONFIG_DIR=str(home / ".claude"))
        argv = [exe, "-m", "tui.cli.main", "-p", prompt]
    try:
        proc = subprocess.run(
            argv, env=env, cwd=project, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=600
        )
    finally:
        api.stop()
    assert proc.returncode == 0, f"{who}: {proc.stderr[-800:]}"
    return [b for b in bodies if b.get("tools")]


def _expansion(who: str, body: dict[str, Any]) -> str:
    texts = [b["text"] for b in body["messages"][0]["content"] if b.get("type") == "text"]
    if who == "claude":
        return texts[next(i for i, t in enumerate(texts) if t.startswith("<command-message>")) + 1]
    return texts[0]


def test_commands_and_skills_expand_as_in_claude_code() -> None:
    if not shutil.which("npm") and not os.environ.get("AGENT_TUI_CLAUDE"):
        pytest.skip("needs npm (or AGENT_TUI_CLAUDE) to get Claude Code")
    root = Path(tempfile.mkdtemp(prefix="differential-commands-"))
    try:
        claude = find_or_install_claude(root)
        for name, text in FILES.items():
            path = root / "proj" / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        for prompt in PROMPTS:
            cc = _run("claude", claude, prompt, root)[0]
            ours = _run("agent-tui", sys.executable, prompt, root)[0]
            assert _expansion("agent-tui", ours) == _expansion("claude", cc), prompt
        cc_listing = json.dumps(cc)
        skill_tool = next(t for t in ours["tools"] if t["name"] == "Skill")
        listing = skill_tool["description"].split(LISTING_HEADER, 1)[1]
        listed = [line for line in listing.splitlines() if line.startswith("- ")]
        assert len(listed) == 4
        for line in listed:
            assert json.dumps(line)[1:-1] in cc_listing, line
    finally:
        shutil.rmtree(root, ignore_errors=True)
