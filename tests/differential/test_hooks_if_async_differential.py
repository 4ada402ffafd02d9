"""Differential: hook `if` conditions and background hooks run for the same calls in agent-tui as in Claude Code.

One scripted turn (tests/differential/hooks_if_harness.py) through both CLIs: which hook ran for which
call, which calls were blocked, whether the turn waited for the async hooks, and what an asyncRewake
hook's exit 2 sent the model. Out of the default run (marker `differential`):
`.venv/bin/python -m pytest -m differential tests/differential/test_hooks_if_async_differential.py`
(set `AGENT_TUI_CLAUDE` to reuse an install).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest

from .harness import agent_python, find_or_install_claude
from .hooks_if_harness import rewake_messages, run_one, summary

pytestmark = [pytest.mark.differential, pytest.mark.timeout(1800)]
RESULTS = Path(__file__).parent / "results" / "hooks-if-async.md"


def cell(value: object) -> str:
    """A value for one markdown table cell."""
    return json.dumps(value).replace("|", "/")


def test_hook_if_and_async_runs_match_claude_code() -> None:
    if not shutil.which("npm") and not os.environ.get("AGENT_TUI_CLAUDE"):
        pytest.skip("needs npm (or AGENT_TUI_CLAUDE) to get Claude Code")
    root = Path(tempfile.mkdtemp(prefix="differential-hooks-if-"))
    try:
        claude = find_or_install_claude(root)
        cc_run = run_one("claude", claude, root)
        our_run = run_one("agent-tui", agent_python(), root)
        cc, ours = summary(cc_run), summary(our_run)
        for into, run in ((cc, cc_run), (ours, our_run)):
            woken = rewake_messages(run)
            into["rewakes"] = len(woken)
            into["rewake messages"] = sorted(set(woken))
        RESULTS.parent.mkdir(exist_ok=True)
        lines = ["| what | Claude Code | agent-tui |", "|---|---|---|"]
        lines += [f"| {key} | {cell(cc[key])} | {cell(ours[key])} |" for key in cc]
        RESULTS.write_text("# Differential run: hook `if` and async hooks\n\n" + "\n".join(lines) + "\n")
        assert cc["hooks"], f"Claude Code ran no hook: {cc_run['proc'].stderr[-500:]}"
        assert ours == cc
    finally:
        shutil.rmtree(root, ignore_errors=True)
