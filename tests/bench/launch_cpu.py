"""Launch to first frame, back to back: `python -m tests.bench.launch_cpu [--runs N] [CHECKOUT ...]`.

Not a benchmark row: a probe for comparing variants of the headless launch on a shared machine. Each
round starts the bare Textual app, then agent-tui's headless child from each checkout (this one when none is
given; another checkout, such as a `git archive` of main, compares a change with its base), one after the
other, and prints per variant the median wall time to the first frame and the median CPU time the process had
used by then (`process_time`, all threads), with its ratio to the bare app's. The CPU figure moves far less
than the wall time when other work shares the cores; the benchmark row (`--only launch`) is the wall time.
`--cli` builds agent-tui's options with the CLI's own code from `--offline` (settings, providers, language
servers), as the tmux row's `agent-tui --offline` does before its app.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from tests.fakeapi.demo_project import make_demo_project

from .bench_launch import first_frame
from .common import PYTHON, REPO, bench_env, median

CHILD = Path(__file__).with_name("launch_child.py")


def _once(which: str, env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """(wall seconds to READY, CPU milliseconds the child had used by then)."""
    # this checkout's child, run on the checkout named by PYTHONPATH
    wall, fields = first_frame([PYTHON, str(CHILD), which, "--headless"], env, cwd)
    return wall, float(fields[2])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkouts", nargs="*", type=Path, help="agent-tui checkouts (default: this one)")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--cli", action="store_true", help="agent-tui's options built by the CLI's code from --offline")
    args = parser.parse_args()
    checkouts = [c.resolve() for c in args.checkouts] or [REPO]
    for checkout in checkouts:  # as an install does (see common.precompile_sources)
        subprocess.run([PYTHON, "-m", "compileall", "-q", str(checkout / "tui")], check=True, stdout=subprocess.DEVNULL)
    root = Path(tempfile.mkdtemp(prefix="bench-launch-cpu-"))
    try:
        project = make_demo_project(root / "project")
        envs = []
        for i, checkout in enumerate(checkouts):  # a home each: their caches (themes) may differ in format
            (root / f"home-{i}").mkdir()
            env = bench_env(root / f"home-{i}", TERM="xterm-256color", COLORTERM="truecolor")
            if args.cli:  # settings, providers, language servers: what `agent-tui --offline` reads before its app
                env["BENCH_CLI_ARGS"] = '["--offline"]'
            envs.append(dict(env, PYTHONPATH=str(checkout)))
        variants = [("bare", envs[0])] + [("agent", env) for env in envs]
        for which, env in variants:  # warm the page cache
            _once(which, env, project)
        results: list[list[tuple[float, float]]] = [[] for _ in variants]
        for _ in range(args.runs):
            for i, (which, env) in enumerate(variants):
                results[i].append(_once(which, env, project))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    walls = [median([r[0] for r in rs]) for rs in results]
    cpus = [median([r[1] for r in rs]) for rs in results]
    names = ["bare Textual"] + [str(c) for c in checkouts]
    for name, wall, cpu in zip(names, walls, cpus, strict=True):
        print(f"{name}: wall {wall * 1000:.1f} ms ({wall / walls[0]:.3f}x), CPU {cpu:.1f} ms ({cpu / cpus[0]:.3f}x)")
    print(f"median of {args.runs} runs each; load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
