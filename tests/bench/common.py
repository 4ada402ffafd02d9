"""Helpers shared by the benchmarks: rows, medians, child processes with their peak RSS, demo projects."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]


def disable_nagle_in_fake_api() -> None:
    """Make the loopback FakeAPI send each SSE chunk at once.

    Without TCP_NODELAY its many small writes meet the client's delayed ACK and every request on a
    reused connection stalls about 40 ms (measured: 44 ms per bare SDK call, 1.5 ms with it set).
    That stall belongs to the fake server, not to any client, so the benchmarks switch it off.
    """
    from tests.fakeapi import server

    server._Handler.disable_nagle_algorithm = True


PYTHON = sys.executable


def precompile_sources() -> None:
    """Write the .pyc files of `tui/` (and the benchmark's own child scripts), as `pip install .` does.

    The benchmarks run the checkout (PYTHONPATH=repo). With PYTHONDONTWRITEBYTECODE set (as in
    this environment and many containers) every child would otherwise compile agent-tui from
    source on each start (~30-80 ms), while Textual and the SDK come precompiled from
    site-packages: a cost no installed user pays.
    """
    subprocess.run(
        [
            PYTHON,
            "-m",
            "compileall",
            "-q",
            str(REPO / "tui"),
            str(REPO / "tests" / "__init__.py"),
            str(REPO / "tests" / "bench"),
        ],
        check=True,
        stdout=subprocess.DEVNULL,
    )


@dataclass
class Settings:
    """How hard to try: `quick` uses fewer repetitions."""

    quick: bool = False

    def reps(self, full: int, quick: int = 2) -> int:
        return quick if self.quick else full


def written_frame(app: Any, screen: Any, renderable: Any) -> bool:
    """Whether a `_display` call writes a frame a real driver would (not empty, not in a batch, not another
    screen's); if so, its segments are rendered as a driver would, so the frame's CPU counts them."""
    if renderable is None or app._batch_count or screen is not app.screen:
        return False
    render = getattr(renderable, "render_segments", None)
    if render is not None:
        render(app.console)
    return True


def row(
    benchmark: str,
    value: float | None,
    baseline: float | None,
    goal: str,
    *,
    unit: str = "",
    met: bool | None = None,
    note: str = "",
    ratio: float | None = None,
    baseline_label: str = "",
) -> dict[str, Any]:
    """One table row; `ratio` defaults to value / baseline."""
    if ratio is None and value is not None and baseline:
        ratio = value / baseline
    return {
        "benchmark": benchmark,
        "value": value,
        "baseline": baseline,
        "ratio": ratio,
        "goal": goal,
        "unit": unit,
        "met": met,
        "note": note,
        "baseline_label": baseline_label,
    }


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def percentile(values: list[float], p: float) -> float:
    """Nearest-rank percentile (p in 0..100)."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    k = max(0, min(len(ordered) - 1, round(p / 100 * len(ordered) + 0.5) - 1))
    return ordered[k]


@dataclass
class ChildRun:
    wall_s: float
    peak_rss_mib: float
    returncode: int
    stdout: str
    stderr: str


def run_child(
    argv: list[str],
    *,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
    timeout: float = 120.0,
    stdin: str | None = None,
) -> ChildRun:
    """Run a process; wall time from spawn to exit and its own peak RSS (os.wait4, not the max over all children)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(
            argv,
            env=env,
            cwd=cwd,
            stdout=out,
            stderr=err,
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        )
        if stdin is not None:
            assert proc.stdin is not None
            proc.stdin.write(stdin.encode())
            proc.stdin.close()
        deadline = start + timeout
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                proc.kill()
                pid, status, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(0.002)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return ChildRun(
            wall,
            usage.ru_maxrss / 1024,
            proc.returncode,
            out.read().decode(errors="replace"),
            err.read().decode(errors="replace"),
        )


def bench_env(home: Path, **extra: str) -> dict[str, str]:
    """A clean environment: a throwaway HOME, no real keys, nothing that phones home."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env.update(
        {
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_DATA_HOME": str(home / ".local/share"),
            "XDG_STATE_HOME": str(home / ".local/state"),
            "PYTHONPATH": str(REPO),
        }
    )
    env.update(extra)
    return env


def fmt(value: float | None, unit: str) -> str:
    if value is None:
        return "—"
    if unit == "s":
        return f"{value:.2f} s"
    if unit == "ms":
        return f"{value:.1f} ms"
    if unit == "tok":
        return f"{value:,.0f} tokens"
    if unit == "MiB":
        return f"{value:.0f} MiB"
    if unit == "%":
        return f"{value:.1f} %"
    return f"{value:.3g}{(' ' + unit) if unit else ''}"


@contextmanager
def scratch_project(prefix: str) -> Iterator[Path]:
    """A demo project in a temp folder, with HOME pointed there; env and folder restored after."""
    import shutil

    from tests.fakeapi.demo_project import make_demo_project

    disable_nagle_in_fake_api()
    root = Path(tempfile.mkdtemp(prefix=prefix))
    saved = {k: os.environ.get(k) for k in ("ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY", "HOME")}
    os.environ["HOME"] = str(root / "home")
    try:
        yield make_demo_project(root / "project")
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        shutil.rmtree(root, ignore_errors=True)
