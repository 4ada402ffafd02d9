"""The soak benchmark (`--only soak`): one app process through a compressed long day on the fake API.

2,000 turns, 200 subagents, 20,000 tool calls, 50 MB of tool output, 5 compactions, the conversation paged
up and back, the inspector and its timeline opened twice, /rewind twice (`soak.py` drives it). Reported: RSS after
warm-up (the turn before the second compaction: each kind of thing the day does has been done once, and the day's
end comes at the same point of its compaction cycle, see soak.warm_turn) and at the end of the day, both while the
app runs, each after a gc.collect(). The note adds the ratio against a tenth of the day and against the turn before
the first compaction (the warm-up points of earlier runs), the RSS after the app closed, the RSS at every tenth of
the day, and how much of the RSS glibc holds as free memory in its arenas. Also reported: UI frame work p95 in the
first and last tenth, descriptors, threads and child processes at the end against before the app, the transcript's
and the checkpoint store's size per turn in each half of the day. `--quick` runs a tenth of the day.
"""

from __future__ import annotations

import asyncio
import gc
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from tests.fakeapi.demo_project import make_demo_project

from .common import Settings, percentile, row
from .soak import Plan, Report, finish, process_counts, run
from .soak_server import serve


def day(settings: Settings) -> Plan:
    full = Plan()
    if not settings.quick:
        return full
    return Plan(
        turns=full.turns // 10,
        subagents=full.subagents // 10,
        tool_calls=full.tool_calls // 10,
        output_bytes=full.output_bytes // 10,
        compactions=full.compactions,
        rewinds=full.rewinds,
    )


def measure(settings: Settings) -> list[dict[str, Any]]:
    from tui.agent.options import AgentOptions
    from tui.agent.session import AgentSession
    from tui.ui.app import AgentApp

    plan = day(settings)
    root = Path(tempfile.mkdtemp(prefix="bench-soak-"))
    saved = {k: os.environ.get(k) for k in ("HOME", "ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY")}
    try:
        os.environ["HOME"] = str(root / "home")
        project = make_demo_project(root / "project")
        sessions = root / "sessions"
        with serve(plan, project) as base_url:  # apart, as the real API is: its memory is not the app's
            os.environ["ANTHROPIC_BASE_URL"], os.environ["ANTHROPIC_API_KEY"] = base_url, "sk-test"
            gc.collect()
            report = Report(start=process_counts())
            options = AgentOptions(
                project_dir=project,
                interactive=True,
                transcript=True,
                sessions_dir=sessions,
                permission_mode="bypassPermissions",
            )
            session = AgentSession(options)
            session.prepare()
            asyncio.run(run(plan, AgentApp(options, session=session), sessions, report))
            finish(report)
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        shutil.rmtree(root, ignore_errors=True)
    return rows(plan, report)


def rows(plan: Plan, report: Report) -> list[dict[str, Any]]:
    tenth = max(1, plan.turns // 10)
    first = [ms for turn, ms in report.frames if turn <= tenth]
    last = [ms for turn, ms in report.frames if turn > plan.turns - tenth]
    day_note = (
        f"{plan.turns} turns, {plan.subagents} subagents, {plan.tool_calls} tool calls, "
        f"{plan.output_bytes / 1e6:.0f} MB of tool output, {report.compactions} compactions, "
        f"{report.rewinds} rewinds, paging, inspector and timeline opened twice; {report.seconds / 60:.1f} min; the fake "
        "API in a process of its own (tests/bench/soak_server.py), as the real API is"
    )
    growth = report.rss_end / report.rss_warm - 1 if report.rss_warm else None
    mem = report.memory
    half = [s for s in report.storage if s[0] <= plan.turns // 2]
    per_turn = [(t / n, c / n) for n, t, c in report.storage if n]
    early = half[-1] if half else report.storage[0]
    end = report.storage[-1]
    # bytes a turn added in the second half, against the first: linear storage keeps the same rate
    first_rate = (early[1] / early[0], early[2] / early[0])
    second_rate = ((end[1] - early[1]) / max(1, end[0] - early[0]), (end[2] - early[2]) / max(1, end[0] - early[0]))
    start, end_counts = report.start, report.end
    back = all(end_counts[k] <= start[k] for k in ("fds", "threads", "children"))
    out = [
        row(
            "soak: RSS at the end of the day, app running",
            report.rss_end,
            report.rss_warm,
            "≤ 1.10× after warm-up",
            unit="MiB",
            met=growth is not None and growth <= 0.10,
            baseline_label=f"after warm-up (turn {report.warm_turn}: a compaction, the inspector and a rewind done once, "
            "before the next compaction), same process",
            note=f"{day_note}; after the last turn and after warm-up alike: the app running, after a gc.collect(); "
            f"{_earlier_warmups_note(report, plan, tenth)}"
            f"{_memory_note(report)}",
        ),
        row(
            "soak: UI frame work p95, last tenth of the day",
            percentile(last, 95),
            percentile(first, 95),
            "≤ 1.2× first tenth",
            unit="ms",
            met=percentile(last, 95) <= 1.2 * percentile(first, 95),
            baseline_label="first tenth, same process",
            note=f"{len(last)} and {len(first)} frames; UI-thread CPU between frames written",
        ),
        row(
            "soak: descriptors, threads, child processes left after the app closed",
            sum(end_counts.get(k, 0) - start.get(k, 0) for k in ("fds", "threads", "children")),
            0.0,
            "back to the start values",
            met=back,
            note=f"start {start}, after warm-up {report.warm}, end {end_counts}; threads left: "
            f"{', '.join(report.leftover_threads) or 'none'}",
        ),
        row(
            "soak: transcript per turn",
            second_rate[0] / 1024,
            first_rate[0] / 1024,
            "linear in turns",
            unit="KiB",
            met=second_rate[0] <= 1.25 * first_rate[0],
            baseline_label="first half of the day",
            note=f"{end[1] / 1e6:.1f} MB after {end[0]} turns; the second half's bytes per turn against the first's",
        ),
        row(
            "soak: checkpoint store per turn",
            second_rate[1] / 1024,
            first_rate[1] / 1024,
            "linear in turns",
            unit="KiB",
            met=second_rate[1] <= 1.25 * max(first_rate[1], 1e-9),
            baseline_label="first half of the day",
            note=f"{end[2] / 1e6:.2f} MB after {end[0]} turns (blobs, manifests, subagent transcripts)",
        ),
        row(
            "soak: widgets mounted, most at any checkpoint",
            float(report.widgets_max),
            None,
            "bounded",
            met=None,
            note=f"sampled every {max(1, plan.turns // 20)} turns",
        ),
    ]
    out[0]["samples"] = {"storage": report.storage, "per_turn": per_turn, "rss_curve": report.rss_curve, "memory": mem}
    out[0]["rss_closed"] = report.rss_closed
    return out


def _earlier_warmups_note(report: Report, plan: Plan, tenth: int) -> str:
    """The end against the RSS at the warm-up points of earlier runs, from the curve: a tenth of the day, and the turn
    before the first compaction (soak.warm_turn says why the warm-up moved)."""
    curve = dict(report.rss_curve)
    points = [(tenth, "a tenth of the day")]
    if plan.compactions:
        points.append((plan.turns // (plan.compactions + 1), "before the first compaction"))
    said = [
        f"against turn {turn} ({what}, {curve[turn]:.0f} MiB): {report.rss_end / curve[turn]:.2f}×"
        for turn, what in points
        if curve.get(turn) and turn != report.warm_turn
    ]
    return "".join(f"{s}; " for s in said)


def _memory_note(report: Report) -> str:
    """The RSS after the close, its curve by tenths, and what holds it (Python's arenas, glibc's) at three points."""
    curve = ", ".join(f"{turn}: {rss:.0f}" for turn, rss in report.rss_curve)
    parts = [
        f"after the app and session closed: {report.rss_closed:.0f} MiB",
        f"RSS (MiB) at each tenth of the day and after warm-up, by turn: {curve}",
    ]
    for stage in ("warm", "end", "closed"):
        m = report.memory.get(stage, {})
        if "anon" not in m:
            continue
        held = [f"anonymous {m['anon']:.0f} MiB, file-backed {m['file']:.0f} MiB"]
        if "pymalloc_arenas" in m:
            held.append(
                f"Python's small-object arenas {m['pymalloc_arenas']:.0f} MiB ({m['pymalloc_used']:.0f} in objects, "
                f"{m['pymalloc_free']:.0f} free)"
            )
        if "malloc_free" in m:
            held.append(
                f"glibc malloc {m['malloc_in_use'] + m['malloc_mmapped']:.0f} MiB in use, {m['malloc_free']:.0f} "
                "free in its arenas"
            )
        parts.append(f"{stage}: {', '.join(held)}")
    return "; ".join(parts)


if __name__ == "__main__":
    import json

    print(json.dumps(measure(Settings(quick=True)), indent=1, default=str))
