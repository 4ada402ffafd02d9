"""Differential: a hook that records its input gets the same keys and values from agent-tui as from Claude Code.

PreToolUse, PostToolUse, UserPromptSubmit and Stop, one scripted turn each through both CLIs
(ids and paths compared by presence only). Out of the default run (marker `differential`):
`.venv/bin/python -m pytest -m differential tests/differential/test_hooks_differential.py`
(set `AGENT_TUI_CLAUDE` to reuse an install).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from .harness import agent_python, find_or_install_claude
from .hooks_harness import report, run_one

pytestmark = [pytest.mark.differential, pytest.mark.timeout(1800)]
RESULTS = Path(__file__).parent / "results" / "hooks.md"


def test_hook_inputs_match_claude_code() -> None:
    if not shutil.which("npm") and not os.environ.get("AGENT_TUI_CLAUDE"):
        pytest.skip("needs npm (or AGENT_TUI_CLAUDE) to get Claude Code")
    root = Path(tempfile.mkdtemp(prefix="differential-hooks-"))
    try:
        claude = find_or_install_claude(root)
        cc, _, cc_err = run_one("claude", claude, root)
        ours, _, our_err = run_one("agent-tui", agent_python(), root)
        assert cc, f"Claude Code ran no hook: {cc_err[-500:]}"
        assert ours, f"agent-tui ran no hook: {our_err[-500:]}"
        table, problems = report(cc, ours)
        RESULTS.parent.mkdir(exist_ok=True)
        RESULTS.write_text(f"# Differential run: hook inputs\n\n{table}\n")
        print(table)
        assert not problems, "\n".join(problems)
    finally:
        shutil.rmtree(root, ignore_errors=True)
