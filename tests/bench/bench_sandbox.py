"""The Bash sandbox's cost: per-command overhead (`true` x200) and a 5 000-file rg, sandboxed vs not, same run.

Both sides go through the real Bash tool (the same spawn, pipes and cwd bookkeeping), so the
difference is the sandbox alone: namespaces, mounts, Landlock, seccomp, the plan and the sweep.
The load average at the start is printed in the notes (the machine is shared).
"""

from __future__ import annotations

import os
import resource
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from tests.bench.common import Settings, median, row
from tui.config.sandbox_settings import SandboxSettings
from tui.sandbox import launch, runtime
from tui.tools.base import SessionState, ToolContext
from tui.tools.bash import BashTool
from tui.tools.ripgrep import find_rg

FILES = 5000


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _timed(ctx: ToolContext, command: str, enabled: bool, reps: int) -> tuple[list[float], list[float]]:
    """Wall seconds and the command's CPU seconds (its reaped processes), per run."""
    previous = runtime.current()
    runtime._current = runtime.SandboxRuntime(SandboxSettings(enabled=enabled), str(ctx.project_dir))
    tool = BashTool()
    try:
        tool.run({"command": command}, ctx)  # warm: the run folder, the probe
        times, cpu = [], []
        for _ in range(reps):
            start, cpu_start = time.perf_counter(), _children_cpu()
            result = tool.run({"command": command}, ctx)
            times.append(time.perf_counter() - start)
            cpu.append(_children_cpu() - cpu_start)
            assert result.meta["sandboxed"] is enabled and result.meta["exit_code"] == 0, result.text()
        return times, cpu
    finally:
        runtime._current.close()
        runtime._current = previous


def _interleaved(ctx: ToolContext, command: str, reps: int, rounds: int = 4) -> tuple[float, float, float]:
    """Median seconds outside and inside, measured in alternating rounds so machine load hits both alike, and
    the ratio of the commands' median CPU time inside to outside (less at the mercy of the load than wall time)."""
    outside: list[float] = []
    inside: list[float] = []
    cpu_out: list[float] = []
    cpu_in: list[float] = []
    for _ in range(rounds):
        wall, cpu = _timed(ctx, command, False, max(1, reps // rounds))
        outside += wall
        cpu_out += cpu
        wall, cpu = _timed(ctx, command, True, max(1, reps // rounds))
        inside += wall
        cpu_in += cpu
    return median(outside), median(inside), median(cpu_in) / median(cpu_out) if median(cpu_out) else float("nan")


def _spawn(sandbox: runtime.SandboxRuntime, proj: str, reps: int, rounds: int = 4) -> dict[str, float]:
    """Median seconds to spawn and reap `/bin/true` (start_new_session as Bash does): unsandboxed, sandboxed as
    the Bash tool does it now (one clone into the namespaces), and with the forking launch (`preexec_fn`, two
    forks of this process) that it replaced, each in alternating rounds so machine load hits all alike."""
    prepared = sandbox.prepare(proj, [])
    kinds: dict[str, Any] = {
        "outside": lambda: subprocess.Popen(["/bin/true"], start_new_session=True),
        "inside": lambda: prepared.popen(["/bin/true"], start_new_session=True),
        "forking": lambda: subprocess.Popen(
            ["/bin/true"], start_new_session=True, preexec_fn=launch.preexec_for(prepared.plan)
        ),
    }
    times: dict[str, list[float]] = {kind: [] for kind in kinds}
    for _ in range(rounds):
        for kind, start_one in kinds.items():
            for _ in range(max(1, reps // rounds)):
                start = time.perf_counter()
                proc = start_one()
                assert proc.wait() == 0
                times[kind].append(time.perf_counter() - start)
    return {kind: median(values) for kind, values in times.items()}


def measure(settings: Settings) -> list[dict[str, Any]]:
    if not runtime.SandboxRuntime().supported():
        return [row("sandbox", None, None, "", note="no Landlock >= 4 / user namespaces here")]
    with tempfile.TemporaryDirectory(prefix="bench-sandbox-") as folder:
        proj = Path(folder)
        ctx = ToolContext(project_dir=proj, state=SessionState(project_dir=proj))
        reps = settings.reps(200, 20)
        load = os.getloadavg()[0]
        outside, inside, _ = _interleaved(ctx, "true", reps)
        overhead_ms = (inside - outside) * 1000
        rows = [
            row(
                "sandbox: `true` per command (Bash tool)",
                inside * 1000,
                outside * 1000,
                "overhead <= 10 ms",
                unit="ms",
                met=overhead_ms <= 10,
                note=f"overhead {overhead_ms:.1f} ms median, {reps} runs each, load average {load:.1f} at the start",
                baseline_label="unsandboxed",
            )
        ]
        sandbox = runtime.SandboxRuntime(SandboxSettings(), str(proj))
        try:
            spawn = _spawn(sandbox, str(proj), reps)
        finally:
            sandbox.close()
        raw_ms = (spawn["inside"] - spawn["outside"]) * 1000
        rows.append(
            row(
                "sandbox: spawn `/bin/true` alone (Popen)",
                spawn["inside"] * 1000,
                spawn["outside"] * 1000,
                "overhead <= 10 ms",
                unit="ms",
                met=raw_ms <= 10,
                baseline_label="unsandboxed",
                note=f"overhead {raw_ms:.1f} ms median (namespaces, mounts, Landlock, seccomp); the forking "
                f"launch it replaced: {(spawn['forking'] - spawn['outside']) * 1000:.1f} ms, same run",
            )
        )
        rg = find_rg()
        if rg is None:
            return [*rows, row("sandbox: rg over 5 000 files", None, None, "", note="rg not installed")]
        for i in range(FILES):
            sub = proj / f"d{i % 50}"
            sub.mkdir(exist_ok=True)
            (sub / f"f{i}.txt").write_text(f"line one\nneedle {i}\nline three\n" * 20)
        outside, inside, cpu_ratio = _interleaved(ctx, f"{rg} -c needle . > /dev/null", settings.reps(40, 4))
        fixed = overhead_ms / 1000
        rows.append(
            row(
                "sandbox: rg over 5 000 files (Bash tool)",
                inside,
                outside,
                "ratio <= 1.1",
                unit="s",
                met=inside / outside <= 1.1,
                baseline_label="unsandboxed",
                note=f"{(inside - fixed) / outside:.2f}x without the fixed per-command cost; CPU time {cpu_ratio:.2f}x",
            )
        )
        return rows


def main() -> None:
    for r in measure(Settings()):
        print(
            f"{r['benchmark']}: {r['value']:.4g} {r['unit']} vs {r['baseline']:.4g} (ratio {r['ratio']:.3f}) "
            f"goal {r['goal']} met={r['met']} {r['note']}"
        )


if __name__ == "__main__":
    main()
