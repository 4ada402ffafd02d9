"""Benchmark of hooks: what one PreToolUse hook adds to a tool call beyond the hook process's own time.

The same no-op tool call runs through the real dispatcher without hooks (baseline) and with one
PreToolUse hook (`true`); the hook process alone is timed with a plain `subprocess.run` of the
same command fed the same stdin. Overhead = with hook - without - the process alone (medians of
interleaved rounds). Goal: ≤ 5 ms per call. Not collected by pytest.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.bench.common import Settings, median, row  # noqa: E402
from tui.agent.options import AgentOptions  # noqa: E402
from tui.agent.session import AgentSession  # noqa: E402
from tui.hooks.config import HookConfig, HookSpec  # noqa: E402
from tui.tools.base import Tool, ToolContext, ToolResult  # noqa: E402

GOAL_MS = 5.0
COMMAND = "true"


class Noop(Tool):
    """A read-only tool that does nothing, so the call's cost is the dispatcher's and the hooks'."""

    name = "Noop"
    description = "Does nothing (benchmark tool)."
    input_schema = {"type": "object", "properties": {"x": {"type": "string"}}}
    read_only = True

    def run(self, tool_input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return ToolResult("ok")


def _session(project: Path, hooks: HookConfig | None) -> AgentSession:
    options = AgentOptions(project_dir=project, transcript=False, offline=True, hooks=hooks)
    from tui.config.permissions import PermissionPolicy

    return AgentSession(options, tools=[Noop()], policy=PermissionPolicy(project_dir=project))


def _call_ms(session: AgentSession, n: int) -> float:
    cancel = threading.Event()
    block = {"type": "tool_use", "id": f"toolu_{n}", "name": "Noop", "input": {"x": "y"}}
    started = time.perf_counter()
    session.dispatcher.run([block], cancel, {})
    return (time.perf_counter() - started) * 1000


def _process_ms(stdin: bytes, project: Path) -> float:
    started = time.perf_counter()
    subprocess.run(["/bin/sh", "-c", COMMAND], input=stdin, capture_output=True, cwd=project)
    return (time.perf_counter() - started) * 1000


def measure(settings: Settings) -> list[dict[str, Any]]:
    import anthropic  # noqa: F401 - the size of the real app's process, where forking costs more
    import textual.app  # noqa: F401

    rounds = settings.reps(200, 30)
    with tempfile.TemporaryDirectory(prefix="bench-hooks-") as tmp:
        project = Path(tmp)
        spec = HookSpec("PreToolUse", "Noop", COMMAND, 60, project / ".claude/settings.json", False)
        plain, hooked = _session(project, None), _session(project, HookConfig([spec], trusted=True))
        stdin = json.dumps(
            {
                **hooked.hooks.base_input(),
                "hook_event_name": "PreToolUse",
                "tool_name": "Noop",
                "tool_input": {"x": "y"},
                "tool_use_id": "toolu_0",
            }
        ).encode()
        base, with_hook, process = [], [], []
        for n in range(rounds + 5):  # interleaved, so load on the machine falls on all three alike
            b, w, p = _call_ms(plain, n), _call_ms(hooked, n), _process_ms(stdin, project)
            if n >= 5:  # warm-up
                base.append(b)
                with_hook.append(w)
                process.append(p)
        plain.close()
        hooked.close()
    overhead = median(with_hook) - median(base) - median(process)
    note = (
        f"call without hooks {median(base):.2f} ms, with one hook {median(with_hook):.2f} ms, "
        f"the hook process alone {median(process):.2f} ms; {rounds} rounds"
    )
    return [
        row(
            "one PreToolUse hook: overhead per call beyond the hook process",
            round(overhead, 2),
            round(median(process), 2),
            f"≤ {GOAL_MS:g} ms",
            unit="ms",
            met=overhead <= GOAL_MS,
            note=note,
            baseline_label="hook process alone",
        )
    ]


if __name__ == "__main__":
    print(json.dumps(measure(Settings(quick="--quick" in sys.argv)), indent=1))
