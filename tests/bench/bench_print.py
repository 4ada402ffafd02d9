"""Benchmark 1: the scripted 3-request `-p` session against the loopback server, side by side with Claude Code."""

from __future__ import annotations

import itertools
import json
import os
import shutil
import tempfile
import threading
from pathlib import Path
from typing import Any

from tests.fakeapi import FakeAPI
from tests.fakeapi.demo_project import make_demo_project
from tests.fakeapi.scriptfile import load_script

from .common import (
    PYTHON,
    REPO,
    ChildRun,
    Settings,
    bench_env,
    disable_nagle_in_fake_api,
    median,
    precompile_sources,
    row,
    run_child,
)

SCENARIO = REPO / "tests/fakeapi/scenarios/three_step.json"
PROMPT = "Look at a.py and b.py, find the TODOs and resolve the one in a.py."
#: recorded in an earlier session against Claude Code 2.1.197: 1.84–2.40 s wall, 295–310 MiB peak RSS (6 runs)
RECORDED_CC_WALL = (1.84, 2.40)
RECORDED_CC_RSS = (295.0, 310.0)


def find_claude() -> str | None:
    """`claude` from AGENT_TUI_BENCH_CLAUDE, PATH, or /tmp/cc/bin/claude."""
    for candidate in (os.environ.get("AGENT_TUI_BENCH_CLAUDE"), shutil.which("claude"), "/tmp/cc/bin/claude"):
        if candidate and Path(candidate).exists():
            return candidate
    return None


class ScenarioServer:
    """The three-step script served in a cycle; `reset()` starts the cycle again for the next run."""

    def __init__(self, project: Path) -> None:
        self.steps = load_script(str(SCENARIO), str(project))
        self.lock = threading.Lock()
        self.cycle = itertools.cycle(self.steps)
        self.api = FakeAPI(self.next_step, token_delay=0.0)

    def next_step(self, body: dict[str, Any]) -> Any:
        with self.lock:
            return next(self.cycle)

    def reset(self) -> None:
        with self.lock:
            self.cycle = itertools.cycle(self.steps)
            self.api.requests.clear()

    def server_seconds(self) -> float:
        return sum((r.t_finished or r.t_received) - r.t_received for r in self.api.message_requests)


def run_ours(server: ScenarioServer, project: Path, home: Path) -> ChildRun:
    env = bench_env(home, ANTHROPIC_BASE_URL=server.api.base_url, ANTHROPIC_API_KEY="sk-test")
    return run_child(
        [PYTHON, "-m", "tui.cli", "-p", PROMPT, "--permission-mode", "acceptEdits", "--cwd", str(project)],
        env=env,
        cwd=project,
    )


def run_claude(claude: str, server: ScenarioServer, project: Path, home: Path) -> ChildRun:
    env = bench_env(
        home,
        ANTHROPIC_BASE_URL=server.api.base_url,
        ANTHROPIC_API_KEY="sk-test",
        CLAUDE_CONFIG_DIR=str(home),
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        DISABLE_TELEMETRY="1",
        DISABLE_AUTOUPDATER="1",
        DISABLE_ERROR_REPORTING="1",
        DISABLE_BUG_COMMAND="1",
    )
    env.pop("PYTHONPATH", None)
    return run_child([claude, "-p", PROMPT, "--permission-mode", "acceptEdits"], env=env, cwd=project)


def check(run: ChildRun, who: str, server: ScenarioServer, project: Path) -> str:
    """An empty string when the run did the three requests and the edit, else what went wrong."""
    posts = len(server.api.message_requests)
    edited = "TODO: validate inputs" not in (project / "a.py").read_text()
    if run.returncode != 0 or posts < 3 or not edited:
        return f"{who}: exit {run.returncode}, {posts} requests, edit {'done' if edited else 'missing'}: {run.stderr[-300:]}"
    return ""


def measure(settings: Settings) -> list[dict[str, Any]]:
    disable_nagle_in_fake_api()
    precompile_sources()
    reps = settings.reps(5, 2)
    claude = find_claude()
    root = Path(tempfile.mkdtemp(prefix="bench-print-"))
    project = root / "project"
    make_demo_project(project)
    server = ScenarioServer(project)
    ours: list[ChildRun] = []
    theirs: list[ChildRun] = []
    problems: list[str] = []
    ours_server: list[float] = []
    try:
        runners: list[tuple[str, Any]] = [("agent-tui", lambda h: run_ours(server, project, h))]
        if claude:
            runners.append(("claude", lambda h: run_claude(claude, server, project, h)))
        for rep in range(reps + 1):  # the first round warms the page cache and is discarded
            for who, runner in runners:  # interleaved, so drift in machine load hits both alike
                make_demo_project(project)
                server.reset()
                home = root / f"home-{who}-{rep}"
                home.mkdir()
                result = runner(home)
                problem = check(result, who, server, project)
                if problem:
                    problems.append(problem)
                if rep == 0:
                    continue
                (ours if who == "agent-tui" else theirs).append(result)
                if who == "agent-tui":
                    ours_server.append(server.server_seconds())
    finally:
        server.api.stop()
        shutil.rmtree(root, ignore_errors=True)
    wall = median([r.wall_s for r in ours])
    rss = median([r.peak_rss_mib for r in ours])
    note = "; ".join(sorted(set(problems)))[:400]
    if theirs:
        cc_wall = median([r.wall_s for r in theirs])
        cc_rss = median([r.peak_rss_mib for r in theirs])
        label = "Claude Code 2.1.197, same run" if claude else ""
        label = f"Claude Code ({_claude_version(claude)}), measured in this run"
    else:
        cc_wall = sum(RECORDED_CC_WALL) / 2
        cc_rss = sum(RECORDED_CC_RSS) / 2
        label = "Claude Code 2.1.197, RECORDED in an earlier session, not measured in this run"
    rows = [
        row(
            "-p 3-request session: wall",
            wall,
            cc_wall,
            "≤ 0.5× Claude Code",
            unit="s",
            met=wall <= 0.5 * cc_wall,
            note=note,
            baseline_label=label,
        ),
        row(
            "-p 3-request session: peak RSS",
            rss,
            cc_rss,
            "≤ 0.5× Claude Code",
            unit="MiB",
            met=rss <= 0.5 * cc_rss,
            baseline_label=label,
        ),
    ]
    rows[0]["samples"] = {
        "ours": [round(r.wall_s, 3) for r in ours],
        "claude": [round(r.wall_s, 3) for r in theirs],
        "ours_server_s": [round(s, 4) for s in ours_server],
    }
    rows[1]["samples"] = {
        "ours": [round(r.peak_rss_mib, 1) for r in ours],
        "claude": [round(r.peak_rss_mib, 1) for r in theirs],
    }
    return rows


def _claude_version(claude: str | None) -> str:
    if not claude:
        return "?"
    try:
        return run_child([claude, "--version"], timeout=30).stdout.split()[0]
    except Exception:
        return "?"


if __name__ == "__main__":
    print(json.dumps(measure(Settings(quick=True)), indent=1))
