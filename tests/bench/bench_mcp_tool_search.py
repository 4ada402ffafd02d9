"""Benchmark: the first request's size with 3 MCP servers / 60 tools, tool search on (auto) against off.

Both runs are the same `-p` session against the fake API (a model with a 200k window, so the
60 definitions pass a tenth of it); the figure is the size of the first /v1/messages body.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from tests.fakeapi.script import reply, text
from tests.integration.mcp_search_run import run_print

from .common import Settings, row

SERVERS = {"github": 20, "linear": 20, "sentry": 20}


def first_request(search: str, home: Path) -> dict[str, Any]:
    proc, bodies = run_print([reply(text("ok"), stop_reason="end_turn")], SERVERS, home, search=search)
    if proc.returncode != 0 or not bodies:
        raise RuntimeError(f"the -p run failed: {proc.stderr[-400:]}")
    return bodies[0]


def measure(settings: Settings) -> list[dict[str, Any]]:
    with tempfile.TemporaryDirectory(prefix="bench-mcp-search-") as tmp:
        on = first_request("auto", Path(tmp) / "on")
        off = first_request("false", Path(tmp) / "off")
    size = lambda body: len(json.dumps(body, ensure_ascii=False).encode()) / 1024  # noqa: E731
    tools = lambda body: sum(t["name"].startswith("mcp__") for t in body["tools"])  # noqa: E731
    note = f"{tools(on)} of {tools(off)} MCP definitions sent; ToolSearch offers the rest"
    ratio = size(on) / size(off)
    return [
        row(
            "MCP tool search: first request, 3 servers / 60 tools",
            size(on),
            size(off),
            "ratio <= 0.2",
            unit="KiB",
            met=ratio <= 0.2,
            ratio=ratio,
            note=note,
            baseline_label="tool search off",
        )
    ]


if __name__ == "__main__":
    for r in measure(Settings(quick=True)):
        print(r)
