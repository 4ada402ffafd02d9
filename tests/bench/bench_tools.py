"""Benchmarks of the tools: Glob/Grep against raw `rg`, and Read deep into a large file.

Not collected by pytest. Run as a script (prints a table) or call `run()` for the rows.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tui.tools.base import SessionState, ToolContext  # noqa: E402
from tui.tools.glob_tool import GlobTool, glob_args  # noqa: E402
from tui.tools.grep import GrepTool  # noqa: E402
from tui.tools.read import ReadTool  # noqa: E402
from tui.tools.ripgrep import find_rg  # noqa: E402

STDLIB = Path("/root/.pyenv/versions/3.11.7/lib/python3.11")
RUNS = 7
READ_GOAL_S = 0.3
RATIO_GOAL = 1.2
#: issue 25's goal for Glob against raw rg
GLOB_GOAL = 1.1


def median_seconds(action: Callable[[], Any], runs: int = RUNS) -> float:
    """Median wall time of `action` after one warm-up run (warm page cache for both sides)."""
    action()
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def raw_rg(args: list[str], cwd: Path) -> Callable[[], Any]:
    """Run rg the way a user would from a shell in `cwd`, collecting all of its output."""
    rg = find_rg()
    assert rg, "rg not found"
    return lambda: subprocess.run([rg, *args], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=False)


def context_for(project: Path) -> ToolContext:
    return ToolContext(project_dir=project, state=SessionState(project_dir=project))


def compare(
    name: str, ours: Callable[[], Any], baseline: Callable[[], Any], runs: int = RUNS, goal: float = RATIO_GOAL
) -> dict[str, Any]:
    """Median times of ours and the baseline, run alternately so machine load hits both alike."""
    ours()
    baseline()
    our_times, base_times = [], []
    for _ in range(runs):
        for action, times in ((ours, our_times), (baseline, base_times)):
            started = time.perf_counter()
            action()
            times.append(time.perf_counter() - started)
    value, base = statistics.median(our_times), statistics.median(base_times)
    return {
        "benchmark": name,
        "value": round(value, 4),
        "baseline": round(base, 4),
        "ratio": round(value / base, 3),
        "goal": f"ratio <= {goal}",
    }


def search_rows(tree: Path = STDLIB) -> list[dict[str, Any]]:
    """Glob and Grep through our tools against the equivalent raw rg command lines."""
    ctx = context_for(tree)
    glob, grep = GlobTool(), GrepTool()
    return [
        compare(
            "Glob **/*.py (stdlib, s)",
            lambda: glob.run({"pattern": "**/*.py"}, ctx),
            raw_rg(["--files", "--glob", "**/*.py"], tree),
            goal=GLOB_GOAL,
        ),
        compare(
            "Grep files_with_matches 'def __init__' (stdlib, s)",
            lambda: grep.run({"pattern": "def __init__"}, ctx),
            raw_rg(["-l", "def __init__"], tree),
        ),
        compare(
            "Grep content -n 'TODO' (stdlib, s)",
            lambda: grep.run({"pattern": "TODO", "output_mode": "content"}, ctx),
            raw_rg(["-n", "TODO"], tree),
        ),
        compare(
            "Grep count -i 'deprecated' type=py (stdlib, s)",
            lambda: grep.run({"pattern": "deprecated", "-i": True, "type": "py", "output_mode": "count"}, ctx),
            raw_rg(["-c", "-i", "-t", "py", "deprecated"], tree),
        ),
        # the same searches against rg run with our exact flags (hidden files, .gitignore outside git):
        # what the tool itself adds (process handling, mtime sort, formatting)
        compare(
            "Glob **/*.py vs rg with the tool's flags (s)",
            lambda: glob.run({"pattern": "**/*.py"}, ctx),
            raw_rg(glob_args("**/*.py", tree)[0], tree),
            goal=GLOB_GOAL,
        ),
        compare(
            "Grep files 'def __init__' vs rg with the tool's flags (s)",
            lambda: grep.run({"pattern": "def __init__"}, ctx),
            raw_rg(grep.build_args({"pattern": "def __init__"}, "files_with_matches", tree, None), tree),
        ),
    ]


def make_big_file(folder: Path, lines: int = 2_000_000) -> Path:
    """A 100 MB text file of 50-byte numbered lines."""
    path = folder / "big.log"
    pad = b"x" * 39
    with open(path, "wb") as f:
        for block in range(0, lines, 100_000):
            f.write(b"".join(b"%09d %s\n" % (i, pad) for i in range(block + 1, block + 100_001)))
    return path


def read_row() -> dict[str, Any]:
    """Read of line 1,000,000 of a 100 MB file (the whole file is hashed for the freshness guard)."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        make_big_file(folder)
        ctx = context_for(folder)
        read = ReadTool()
        value = median_seconds(
            lambda: read.run({"file_path": "big.log", "offset": 1_000_000, "limit": 10}, ctx), runs=5
        )
        tail = raw_rg(["--no-config", "-m1", "^001000000 ", "big.log"], folder)
        base = median_seconds(tail, runs=5)
    return {
        "benchmark": "Read offset=1,000,000 of 100 MB (s)",
        "value": round(value, 4),
        "baseline": round(base, 4),
        "ratio": round(value / base, 3),
        "goal": f"value < {READ_GOAL_S} s",
    }


def run() -> list[dict[str, Any]]:
    """Every tool benchmark as rows {benchmark, value, baseline, ratio, goal}."""
    rows = search_rows() if STDLIB.is_dir() else []
    rows.append(read_row())
    return rows


def print_table(rows: list[dict[str, Any]]) -> None:
    width = max(len(r["benchmark"]) for r in rows)
    print(f"{'benchmark':<{width}}  {'ours':>8}  {'baseline':>8}  {'ratio':>6}  goal")
    for r in rows:
        print(f"{r['benchmark']:<{width}}  {r['value']:>8.4f}  {r['baseline']:>8.4f}  {r['ratio']:>6.3f}  {r['goal']}")


if __name__ == "__main__":
    print_table(run())
