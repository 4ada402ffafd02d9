"""Run every benchmark, print the table and write tests/bench/results/latest.json.

    python -m tests.bench            # full: medians over several repetitions
    python -m tests.bench --quick    # fewer repetitions
    python -m tests.bench --only print engine
    python -m tests.bench --only soak      # the long day (not in a full run: it takes most of an hour)
    python -m tests.bench --publish        # the saved run into docs/benchmarks.md and README.md (publish.py)

Each figure is measured against its baseline in the same run. Benchmarks never fail on speed:
the exit code is 0 whenever every benchmark could run. A full run (no --only, no --quick) writes its
table into docs/benchmarks.md and one headline line per area into README.md, between their markers.
"""

from __future__ import annotations

import argparse
import importlib
import json
import platform
import sys
import time
import traceback
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # `python tests/bench/run.py`
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.bench.common import REPO, Settings, row
from tests.bench.publish import goal_met, joined, publish, table

RESULTS = REPO / "tests/bench/results/latest.json"
#: suites run only when named with --only (the soak takes most of an hour)
OPT_IN = {"soak"}
#: (short name, module, title) in table order
SUITES = [
    ("print", "tests.bench.bench_print", "-p scripted session vs Claude Code"),
    ("launch", "tests.bench.bench_launch", "app launch to first frame"),
    ("engine", "tests.bench.bench_engine", "loop overhead, parallel tools, cache reads"),
    ("app", "tests.bench.bench_app", "streaming, keystroke echo, long sessions"),
    ("tools", "tests.bench.bench_tools", "Grep and Glob vs raw rg"),
    ("hooks", "tests.bench.bench_hooks", "one PreToolUse hook: overhead beyond the hook process"),
    ("providers", "tests.bench.bench_providers", "-p per provider (Bedrock, Vertex) vs the plain API"),
    ("mcp", "tests.bench.bench_mcp", "MCP call overhead, first frame with MCP servers"),
    ("mcp-search", "tests.bench.bench_mcp_tool_search", "first request with 60 MCP tools, tool search on vs off"),
    ("subagents", "tests.bench.bench_subagents", "subagent start, 8 in parallel, memory per subagent"),
    ("tokens", "tests.bench.bench_tokens", "first request's token footprint vs Claude Code"),
    ("sandbox", "tests.bench.bench_sandbox", "Bash sandbox overhead and a 5 000-file rg inside vs outside"),
    ("lsp", "tests.bench.bench_lsp", "diagnostics after an edit vs the server's own time, memory with a server"),
    ("timetravel", "tests.bench.bench_timetravel", "checkpoints, rewind, replay"),
    ("cost", "tests.bench.bench_cost", "cost attribution per request at 500 turns vs the request build"),
    ("images", "tests.bench.bench_images", "attaching a 12-megapixel PNG vs Pillow's decode+resize"),
    ("terminal", "tests.bench.bench_terminal", "bytes written to the terminal during a streamed turn vs Claude Code"),
    ("soak", "tests.bench.bench_soak", "one app through a compressed long day: memory, frames, leaks, storage"),
]


def run_suite(module_name: str, settings: Settings) -> list[dict[str, Any]]:
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        return [row(module_name.rsplit(".", 1)[-1], None, None, "", note=f"not available: {exc}")]
    try:
        if module_name.endswith("bench_tools"):
            rows = [dict(r) for r in module.run()]
            for r in rows:  # its rows carry no unit or verdict: seconds, goal "ratio <= N" or "value < N s"
                r.setdefault("unit", "s")
                if r.get("met") is None:
                    r["met"] = goal_met(r)
            return rows
        return list(module.measure(settings))
    except Exception as exc:  # one broken benchmark must not hide the others
        traceback.print_exc()
        return [row(module_name.rsplit(".", 1)[-1], None, None, "", note=f"failed: {type(exc).__name__}: {exc}")]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.bench", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--only", nargs="+", choices=[s[0] for s in SUITES], help="run only these suites")
    parser.add_argument("--out", type=Path, default=RESULTS, help="where to write the JSON")
    parser.add_argument("--table", type=Path, metavar="JSON", help="print the table of an earlier run and exit")
    parser.add_argument(
        "--publish",
        type=Path,
        metavar="JSON",
        nargs="*",
        help="write saved runs (default: the latest; several are joined: a full run and the soak, or a suite "
        "run again replacing its rows) into "
        "docs/benchmarks.md and README.md, and exit",
    )
    args = parser.parse_args(argv)
    if args.publish is not None:
        saved = [json.loads(path.read_text()) for path in args.publish or [RESULTS]]
        publish(joined(saved))
        print(
            "wrote the table into docs/benchmarks.md and the headline into README.md; "
            "read the sentences around them again",
            file=sys.stderr,
        )
        return 0
    if args.table:
        saved = json.loads(args.table.read_text())
        for r in saved["rows"]:
            if r.get("met") is None:
                r["met"] = goal_met(r)
        print(f"{saved['generated']}{' (--quick)' if saved.get('quick') else ''}, {saved['machine']}")
        print(table(saved["rows"]))
        return 0
    settings = Settings(quick=args.quick)
    rows: list[dict[str, Any]] = []
    started = time.time()
    for name, module_name, title in SUITES:
        if (args.only and name not in args.only) or (not args.only and name in OPT_IN):
            continue
        print(f"-- {name}: {title}", file=sys.stderr, flush=True)
        t = time.perf_counter()
        suite_rows = run_suite(module_name, settings)
        for r in suite_rows:
            r.setdefault("suite", name)
        rows.extend(suite_rows)
        print(f"   {time.perf_counter() - t:.1f} s", file=sys.stderr, flush=True)
    print(table(rows))
    report = {
        "generated": time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(started)),
        "quick": args.quick,
        "machine": {
            "python": platform.python_version(),
            "platform": platform.platform(),
            "cpus": __import__("os").cpu_count(),
        },
        "rows": rows,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1, default=str) + "\n")
    print(f"wrote {args.out}", file=sys.stderr)
    if not args.only and not args.quick and args.out == RESULTS:  # a full run is the one the docs show
        publish(report)
        print(
            "wrote the table into docs/benchmarks.md and the headline into README.md; "
            "read the sentences around them again",
            file=sys.stderr,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
