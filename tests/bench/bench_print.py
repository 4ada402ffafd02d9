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
FLOOR = REPO / "tests/bench/print_floor.py"
#: like with like: Claude Code starts no language server without a plugin that adds one, so agent-tui's run starts
#: none either (a server found on PATH would check the edit of a.py; `--only lsp` measures what that costs)
NO_LSP = ["--settings", '{"lsp": {"enabled": false}}']


def find_claude(root: Path) -> tuple[str | None, str]:
    """(`claude`, '') from AGENT_TUI_BENCH_CLAUDE, else the newest from npm installed under `root`; (None, why not)."""
    given = os.environ.get("AGENT_TUI_BENCH_CLAUDE")
    if given:
        return (given, "") if Path(given).exists() else (None, f"AGENT_TUI_BENCH_CLAUDE={given} does not exist")
    from tests.differential.harness import find_or_install_claude

    try:
        return find_or_install_claude(root), ""
    except Exception as exc:  # no npm, no registry: the row says so and shows no ratio
        return None, f"Claude Code could not be installed from npm here ({type(exc).__name__})"


def run_floor(server: ScenarioServer, project: Path, home: Path) -> ChildRun:
    """The bare SDK script: the same three streamed requests, nothing else."""
    env = bench_env(home)
    return run_child([PYTHON, str(FLOOR), server.api.base_url, PROMPT], env=env, cwd=project)


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
        [
            PYTHON,
            "-m",
            "tui.cli.main",
            "-p",
            PROMPT,
            "--permission-mode",
            "acceptEdits",
            "--cwd",
            str(project),
            *NO_LSP,
        ],
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
    root = Path(tempfile.mkdtemp(prefix="bench-print-"))
    claude, no_claude = find_claude(root)
    version = _claude_version(claude)  # asked now: the install goes with `root` at the end
    project = root / "project"
    make_demo_project(project)
    server = ScenarioServer(project)
    ours: list[ChildRun] = []
    theirs: list[ChildRun] = []
    floor: list[ChildRun] = []
    problems: list[str] = []
    ours_server: list[float] = []
    try:
        runners: list[tuple[str, Any]] = [
            ("agent-tui", lambda h: run_ours(server, project, h)),
            ("floor", lambda h: run_floor(server, project, h)),
        ]
        if claude:
            runners.append(("claude", lambda h: run_claude(claude, server, project, h)))
        for rep in range(reps + 1):  # the first round warms the page cache and is discarded
            for who, runner in runners:  # interleaved, so drift in machine load hits both alike
                make_demo_project(project)
                server.reset()
                home = root / f"home-{who}-{rep}"
                home.mkdir()
                result = runner(home)
                problem = check(result, who, server, project) if who != "floor" else ""
                if who == "floor" and (result.returncode != 0 or len(server.api.message_requests) != 3):
                    problem = f"floor: exit {result.returncode}, {len(server.api.message_requests)} requests: {result.stderr[-300:]}"
                if problem:
                    problems.append(problem)
                if rep == 0:
                    continue
                {"agent-tui": ours, "floor": floor, "claude": theirs}[who].append(result)
                if who == "agent-tui":
                    ours_server.append(server.server_seconds())
    finally:
        server.api.stop()
        shutil.rmtree(root, ignore_errors=True)
    wall = median([r.wall_s for r in ours])
    rss = median([r.peak_rss_mib for r in ours])
    floor_wall = median([r.wall_s for r in floor])
    floor_rss = median([r.peak_rss_mib for r in floor])
    note = "; ".join(["no language server (as Claude Code without an LSP plugin)", *sorted(set(problems))])[:400]
    if theirs:
        cc_wall: float | None = median([r.wall_s for r in theirs])
        cc_rss: float | None = median([r.peak_rss_mib for r in theirs])
        label = f"Claude Code {version}, measured in this run"
    else:  # no recorded figure stands in: the row shows no ratio and says why
        cc_wall = cc_rss = None
        label = f"Claude Code not measured: {no_claude or 'it did not run'}"
    rows = [
        row(
            "-p 3-request session: wall",
            wall,
            cc_wall,
            "≤ 0.5× Claude Code",
            unit="s",
            met=wall <= 0.5 * cc_wall if cc_wall else None,
            note=note,
            baseline_label=label,
        ),
        row(
            "-p 3-request session: peak RSS",
            rss,
            cc_rss,
            "≤ 0.5× Claude Code",
            unit="MiB",
            met=rss <= 0.5 * cc_rss if cc_rss else None,
            baseline_label=label,
        ),
        row(
            "-p 3-request session: wall vs the SDK floor",
            wall,
            floor_wall,
            "≤ 1.15× the floor",
            unit="s",
            met=wall <= 1.15 * floor_wall,
            baseline_label="a bare script: import anthropic, the same 3 streamed requests (tests/bench/print_floor.py)",
            note=f"the floor's peak RSS {floor_rss:.0f} MiB",
        ),
    ]
    rows[0]["samples"] = {
        "ours": [round(r.wall_s, 3) for r in ours],
        "claude": [round(r.wall_s, 3) for r in theirs],
        "floor": [round(r.wall_s, 3) for r in floor],
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
