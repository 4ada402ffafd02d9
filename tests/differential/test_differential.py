"""Differential: agent-tui never runs a Bash command that Claude Code refuses, trusted or not.

Out of the default run (marker `differential`). Run it with
`.venv/bin/python -m pytest -m differential tests/differential` (set `AGENT_TUI_CLAUDE` to reuse an install).
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from .commands import COMMANDS
from .harness import agent_python, find_or_install_claude, more_permissive, run_one, table

pytestmark = [pytest.mark.differential, pytest.mark.timeout(3600)]
RESULTS = Path(__file__).parent / "results" / "latest.md"


def test_agent_tui_never_runs_what_claude_code_refuses() -> None:
    if not shutil.which("npm") and not __import__("os").environ.get("AGENT_TUI_CLAUDE"):
        pytest.skip("needs npm (or AGENT_TUI_CLAUDE) to get Claude Code")
    root = Path(tempfile.mkdtemp(prefix="differential-"))
    try:
        claude = find_or_install_claude(root)
        runs = {}
        for folder in ("trusted", "untrusted"):
            runs[f"claude {folder}"] = run_one("claude", claude, COMMANDS, root, folder == "trusted")
            runs[f"agent-tui {folder}"] = run_one("agent-tui", agent_python(), COMMANDS, root, folder == "trusted")
        report = table(COMMANDS, runs)
        RESULTS.parent.mkdir(exist_ok=True)
        RESULTS.write_text(f"# Differential run: {len(COMMANDS)} commands\n\n{report}\n")
        print(report)
        problems = []
        for folder in ("trusted", "untrusted"):
            cc, ours = runs[f"claude {folder}"], runs[f"agent-tui {folder}"]
            assert "missing" not in cc.verdicts, f"Claude Code reported no result for some commands: {cc.stderr[-500:]}"
            assert "missing" not in ours.verdicts, (
                f"agent-tui reported no result for some commands: {ours.stderr[-500:]}"
            )
            for command in more_permissive(COMMANDS, cc, ours):
                problems.append(f"{folder}: agent-tui ran {command!r}, Claude Code refused it")
        untrusted = runs["agent-tui untrusted"].marker
        if "fsmonitor" in untrusted:
            problems.append("untrusted: a git call ran the repository's core.fsmonitor")
        assert not problems, "\n".join(problems)
    finally:
        shutil.rmtree(root, ignore_errors=True)
