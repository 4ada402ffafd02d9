"""A child process for the 500-turn memory row: `python -m tests.bench.resume_rss PROJECT TRANSCRIPT PAGES`.

Resumes TRANSCRIPT into the app, pages up PAGES times as `bench_app._resume_run` does, and prints one JSON
line: the process's RSS after scrolling (MiB) and the widgets mounted. Each session is measured in a process
of its own, so nothing the benchmark process loaded or kept before (the SDK, earlier runs) is counted.
"""

from __future__ import annotations

import asyncio
import gc
import json
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    from .bench_app import _resume_run, _rss_mib

    project, transcript, pages = Path(argv[0]), Path(argv[1]), int(argv[2])
    out = asyncio.run(_resume_run(project, transcript, pages))
    gc.collect()
    print(json.dumps({"rss_mib": out["rss_mib"], "rss_after_close_mib": _rss_mib(), "widgets": out["widgets"]}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
