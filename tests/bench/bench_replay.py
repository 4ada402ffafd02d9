"""Replay of a 500-turn session: process start to the first frame, against the plain app's start in the same run."""

from __future__ import annotations

import json
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from .common import PYTHON, REPO, Settings, median, precompile_sources, row

#: the child: loads the session, starts the replay app headless and prints READY at the first frame
CHILD = """
import sys
from pathlib import Path
from tui.ui import gc_tuning
gc_tuning.pause()  # as tui.cli.main.main does
from tui.agent.options import AgentOptions
from tui.ui import app as app_module
from tui.ui.app import AgentApp
path, project = Path(sys.argv[1]), Path(sys.argv[2])
options = AgentOptions(project_dir=project, offline=True, transcript=False, interactive=True)
if sys.argv[3] == "replay":
    from tui.agent.history.replay_check import check_replayable
    from tui.ui.replay_app import ReplayApp
    check_replayable(path)  # as `agent-tui replay` does before the app starts; the events load after its first frame
    base, args = ReplayApp, (options, path)
else:
    base, args = AgentApp, (options,)
class Bench(base):
    CSS_PATH = str(Path(app_module.__file__).parent / str(AgentApp.CSS_PATH))
    def on_ready(self):  # AgentApp.on_ready runs too (Textual calls handlers along the MRO)
        print("READY", flush=True)
        self.exit()
Bench(*args).run(headless=True)
"""


def write_session(path: Path, turns: int = 500) -> None:
    """A transcript shaped like a real one: per turn a prompt, a request, a streamed reply and its events."""
    lines = [{"type": "session", "session_id": "bench", "project_dir": str(path.parent), "model": "m"}]
    ts = 1.7e9
    for n in range(1, turns + 1):
        prompt = {"role": "user", "content": [{"type": "text", "text": f"question {n}"}]}
        answer = {"role": "assistant", "content": [{"type": "text", "text": f"answer {n} " + "words " * 60}]}
        lines += [
            {"type": "message", "message": prompt},
            {"type": "event", "event": {"type": "TurnStarted", "ts": ts, "turn_id": n, "prompt": f"question {n}"}},
            {
                "type": "request",
                "iteration": 1,
                "attempt": 1,
                "ts": ts,
                "body": {"model": "m", "messages_count": 2 * n - 1},
            },
            {
                "type": "event",
                "event": {
                    "type": "ResponseStarted",
                    "ts": ts + 0.1,
                    "iteration": 1,
                    "message_id": "m",
                    "request_id": None,
                    "ttfb_ms": 100,
                },
            },
            {
                "type": "event",
                "event": {"type": "BlockStarted", "ts": ts + 0.1, "iteration": 1, "index": 0, "block_type": "text"},
            },
            {
                "type": "event",
                "event": {
                    "type": "BlockFinished",
                    "ts": ts + 0.5,
                    "iteration": 1,
                    "index": 0,
                    "block": answer["content"][0],
                },
            },
            {"type": "message", "message": answer},
            {
                "type": "event",
                "event": {
                    "type": "ResponseFinished",
                    "ts": ts + 0.5,
                    "iteration": 1,
                    "message": answer,
                    "stop_reason": "end_turn",
                    "usage": {"input_tokens": 10, "output_tokens": 60},
                    "request_id": None,
                    "ttfb_ms": 100,
                    "duration_ms": 500,
                    "cost_usd": 0.0,
                },
            },
            {
                "type": "event",
                "event": {
                    "type": "TurnFinished",
                    "ts": ts + 0.6,
                    "turn_id": n,
                    "stop_reason": "end_turn",
                    "is_error": False,
                    "num_iterations": 1,
                    "duration_ms": 600,
                    "usage": {},
                    "cost_usd": 0.0,
                    "session_usage": {},
                    "session_cost_usd": 0.0,
                },
            },
        ]
        ts += 5
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def first_frame(which: str, path: Path, runs: int) -> tuple[float, float]:
    """Median times from the process's start to its first frame (the READY line) and to its exit after it."""
    times, exits = [], []
    for _ in range(runs):
        started = time.perf_counter()
        with subprocess.Popen(
            [PYTHON, "-c", CHILD, str(path), str(path.parent), which],
            cwd=REPO,
            text=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        ) as child:
            assert child.stdout is not None
            line = child.stdout.readline()
            ready = time.perf_counter() - started
            _out, err = child.communicate(timeout=120)
        exits.append(time.perf_counter() - started)
        if "READY" not in line:
            raise RuntimeError(f"replay child failed: {err[-500:]}")
        times.append(ready)
    return median(times), median(exits)


def replay_row(settings: Settings) -> dict[str, Any]:
    runs = settings.reps(5, 2)
    precompile_sources()  # as the other start-up benchmarks do: an installed agent-tui has its .pyc files
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.jsonl"
        write_session(path)
        value, value_exit = first_frame("replay", path, runs)
        base, base_exit = first_frame("app", path, runs)
    return row(
        "replay of a 500-turn session to first frame",
        value,
        base,
        "≤ 1 s",
        unit="s",
        met=value <= 1.0,
        baseline_label="the app's own start to first frame",
        note=f"to the process's exit just after it: replay {value_exit:.2f} s, app {base_exit:.2f} s",
    )
