"""Token footprint: the first request of a plain `-p` prompt (system + tools + prompt), agent-tui against Claude Code.

Both CLIs send their first request to the same fake API, whose token estimate (the one its
count_tokens answers with) weighs both bodies the same way. Claude Code's side requests (no
tools: titles, summaries) are not counted. Without Claude Code installed the row says so.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from tests.bench.bench_print import _claude_version, find_claude
from tests.bench.common import REPO, Settings, row, run_child
from tests.fakeapi import FakeAPI, reply
from tests.fakeapi.caching import count_tokens

PROMPT = "hello"
#: issue 33: Claude Code's working rules without its weight, at most this share of its first request
GOAL = 0.4
#: the tools agent-tui had before issue 16 (the row's second figure)
FIRST_SEVEN = ("Read", "Write", "Edit", "Bash", "Glob", "Grep", "TodoWrite")


def first_request(argv: list[str], env: dict[str, str], project: Path) -> dict[str, Any] | None:
    """The first request with tools[] that `argv` sends to a fake API."""
    bodies: list[dict[str, Any]] = []

    def step(body: dict[str, Any]) -> Any:
        bodies.append(body)
        return reply("Hi.")

    with FakeAPI(step) as api:
        run_child(
            argv,
            env={**env, "ANTHROPIC_BASE_URL": api.base_url, "ANTHROPIC_API_KEY": "sk-test"},
            cwd=project,
            timeout=120,
        )
    return next((b for b in bodies if b.get("tools")), None)


def measure(settings: Settings) -> list[dict[str, Any]]:
    with tempfile.TemporaryDirectory(prefix="agent-tui-bench-tokens-") as tmp:
        root = Path(tmp)
        project, home = root / "project", root / "home"
        project.mkdir()
        home.mkdir()
        (project / "README.md").write_text("# demo\n")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CLAUDE", "AGENT_TUI"))}
        env.update(
            HOME=str(home),
            XDG_CONFIG_HOME=str(home / ".config"),
            XDG_DATA_HOME=str(home / ".local/share"),
            PYTHONPATH=str(REPO),
        )
        ours = first_request([sys.executable, "-m", "tui.cli.main", "-p", PROMPT], env, project)
        claude = find_claude(root)[0]
        theirs = None
        if claude:
            cc_env = {
                **env,
                "CLAUDE_CONFIG_DIR": str(home),
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
                "DISABLE_TELEMETRY": "1",
                "DISABLE_AUTOUPDATER": "1",
                "DISABLE_ERROR_REPORTING": "1",
            }
            (home / ".claude.json").write_text(
                json.dumps(
                    {
                        "hasCompletedOnboarding": True,
                        "customApiKeyResponses": {"approved": ["sk-test"], "rejected": []},
                        "projects": {str(project): {"hasTrustDialogAccepted": True}},
                    }
                )
            )
            theirs = first_request([claude, "-p", PROMPT], cc_env, project)
        version = _claude_version(claude)  # while the install under `root` still exists
    if ours is None:
        return [row("first request of a plain prompt: tokens", None, None, f"≤ {GOAL}× Claude Code", note="no request")]
    before = {**ours, "tools": [t for t in ours["tools"] if t.get("name") in FIRST_SEVEN]}
    label = f"Claude Code ({version}), measured in this run" if theirs else "Claude Code not installed"
    cc_tokens = count_tokens(theirs) if theirs else None
    return [
        row(
            f"first request of a plain prompt: tokens — {len(ours['tools'])} tools",
            count_tokens(ours),
            cc_tokens,
            f"≤ {GOAL}× Claude Code",
            unit="tok",
            baseline_label=label,
            met=None if cc_tokens is None else count_tokens(ours) <= GOAL * cc_tokens,
        ),
        row(
            "first request with only the 7 tools before issue 16: tokens",
            count_tokens(before),
            cc_tokens,
            "for comparison",
            unit="tok",
            baseline_label=label,
        ),
    ]


if __name__ == "__main__":
    for r in measure(Settings(quick=True)):
        print(json.dumps(r))
