"""The soak's fake API in a process of its own: `python -m tests.bench.soak_server PLAN_JSON PROJECT`.

The soak measures the app's memory; a fake API in the app's process counted its own parsed request bodies
(each the whole history) and its SSE buffers in the app's RSS, and they grew with the history as the app's
stores did. Run apart, as the real API is, it prints its base URL on stdout and serves until its stdin closes.
`serve(plan, project)` starts it and stops it again (a context manager).
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.fakeapi import FakeAPI

from .common import disable_nagle_in_fake_api
from .soak import Plan, script


@contextmanager
def serve(plan: Plan, project: Path) -> Iterator[str]:
    """The fake API of `plan`'s day, in a child process; yields its base URL."""
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.bench.soak_server", json.dumps(dataclasses.asdict(plan)), str(project)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        base_url = child.stdout.readline().strip()
        if not base_url.startswith("http"):
            raise RuntimeError(f"the soak's fake API did not start (exit {child.poll()})")
        yield base_url
    finally:
        if child.stdin is not None:
            child.stdin.close()
        try:
            child.wait(10)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
        if child.stdout is not None:
            child.stdout.close()


def main(argv: list[str]) -> int:
    plan = Plan(**json.loads(argv[0]))
    disable_nagle_in_fake_api()
    with FakeAPI(script(plan, Path(argv[1])), validate=False, simulate_cache=False, keep_requests=0) as api:
        print(api.base_url, flush=True)
        sys.stdin.read()  # until the soak closes it
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
