"""Benchmark 2: process start to first frame, headless and in tmux, against a bare Textual app in the same run."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from tests.fakeapi.demo_project import make_demo_project

from .common import PYTHON, Settings, bench_env, median, precompile_sources, row


def first_frame(command: list[str], env: dict[str, str], cwd: Path) -> tuple[float, list[str]]:
    """Seconds from spawning `command` (a launch_child.py) until it prints READY at its first frame, and that line's
    fields (`READY <sdk-imported> <cpu-ms>`)."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        command,
        env=env,
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    elapsed = time.perf_counter() - start
    proc.wait(30)
    if not line.startswith("READY"):
        raise RuntimeError(f"{' '.join(command[-2:])}: no first frame")
    return elapsed, line.split()


def headless_once(which: str, env: dict[str, str], cwd: Path) -> tuple[float, bool]:
    """Seconds from spawn until the child prints READY at its first on_ready; and whether the SDK was loaded by then."""
    elapsed, fields = first_frame([PYTHON, "-m", "tests.bench.launch_child", which, "--headless"], env, cwd)
    return elapsed, fields[1] == "True"


def tmux_once(command: list[str], expect: str, env: dict[str, str], cwd: Path) -> float:
    """Seconds from `tmux new-session` until `expect` is visible in the pane (polled every 5 ms)."""
    name = f"bench-{uuid.uuid4().hex[:8]}"
    env_args = [
        arg
        for key in ("HOME", "PYTHONPATH", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME")
        for arg in ("-e", f"{key}={env[key]}")
    ]
    argv = ["tmux", "new-session", "-d", "-s", name, "-x", "120", "-y", "40", "-c", str(cwd), *env_args, *command]
    for _ in range(3):
        start = time.perf_counter()
        done = subprocess.run(argv, env=env, capture_output=True, text=True)
        if done.returncode == 0:
            break
        # killing the last session makes the tmux server exit; a new-session that arrives while it
        # is exiting fails with "server exited unexpectedly": wait and start the clock again
        time.sleep(0.2)
    else:
        raise RuntimeError(f"tmux new-session failed: {done.stderr.strip()}")
    try:
        while time.perf_counter() - start < 30:
            pane = subprocess.run(["tmux", "capture-pane", "-p", "-t", name], capture_output=True, text=True).stdout
            if expect in pane:
                return time.perf_counter() - start
            time.sleep(0.005)
        raise RuntimeError(f"{expect!r} never appeared in tmux")
    finally:
        subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)


def measure(settings: Settings) -> list[dict[str, Any]]:
    reps = settings.reps(7, 2)
    precompile_sources()
    root = Path(tempfile.mkdtemp(prefix="bench-launch-"))
    project = make_demo_project(root / "project")
    env = bench_env(root / "home", TERM="xterm-256color", COLORTERM="truecolor")
    (root / "home").mkdir()
    rows: list[dict[str, Any]] = []
    try:
        bare_h, ours_h, sdk_seen = [], [], []
        headless_once("bare", env, project)  # warm the page cache
        headless_once("agent", env, project)
        for _ in range(reps):
            bare_h.append(headless_once("bare", env, project)[0])
            t, sdk = headless_once("agent", env, project)
            ours_h.append(t)
            sdk_seen.append(sdk)
        ours, bare = median(ours_h), median(bare_h)
        rows.append(
            row(
                "launch to first frame, headless",
                ours,
                bare,
                "≤ 1.1× bare Textual",
                unit="s",
                met=ours <= 1.1 * bare and not any(sdk_seen),
                baseline_label="bare Textual app, this run",
                note="SDK imported before the first frame in "
                f"{sum(sdk_seen)} of {len(sdk_seen)} runs; tui/ precompiled to .pyc as an install does",
            )
        )
        if shutil.which("tmux"):
            bare_cmd = [PYTHON, "-m", "tests.bench.launch_child", "bare"]
            ours_cmd = [PYTHON, "-m", "tui.cli.main", "--offline"]
            env_stay = dict(env, BENCH_STAY="1")
            bare_t, ours_t = [], []
            for _ in range(reps):
                bare_t.append(tmux_once(bare_cmd, "hello-world", env_stay, project))
                ours_t.append(tmux_once(ours_cmd, "agent-tui ·", env_stay, project))
            ours, bare = median(ours_t), median(bare_t)
            rows.append(
                row(
                    "launch to first frame, tmux 120×40 (`agent-tui --offline`)",
                    ours,
                    bare,
                    "≤ 1.3× bare Textual",
                    unit="s",
                    met=ours <= 1.3 * bare,
                    note="tui/ precompiled to .pyc as an install does",
                    baseline_label="bare Textual app, this run",
                )
            )
        else:
            rows.append(
                row("launch to first frame, tmux", None, None, "≤ 1.3× bare Textual", note="tmux not installed")
            )
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return rows


if __name__ == "__main__":
    import json

    print(json.dumps(measure(Settings(quick=True)), indent=1))
