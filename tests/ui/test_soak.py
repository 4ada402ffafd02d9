"""A short soak (about 100 turns in one app): nothing is left behind, the widget count stays bounded, and the
transcript reloads to the same history. Only what is deterministic is checked; the figures are the benchmark's
(`python -m tests.bench --only soak`)."""

from __future__ import annotations

import asyncio
import gc
import os
from pathlib import Path

import pytest

from tests.bench.soak import BIG_OUTPUT, FAKE_API_KEEPS, Plan, Report, finish, process_counts, run, script
from tests.fakeapi import FakeAPI
from tui.agent.options import AgentOptions
from tui.agent.session import AgentSession
from tui.ui.app import AgentApp
from tui.ui.widgets.conversation import MAX_MOUNTED_TURNS

PLAN = Plan(turns=100, subagents=5, tool_calls=200, output_bytes=2 * BIG_OUTPUT, compactions=2, rewinds=2)


@pytest.mark.timeout(900)
def test_a_short_soak_leaves_nothing_behind_and_reloads_the_same_history(
    demo_project: Path, tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    sessions = tmp_path / "sessions"
    with FakeAPI(script(PLAN, demo_project), validate=False, simulate_cache=False, keep_requests=FAKE_API_KEEPS) as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
        gc.collect()
        report = Report(start=process_counts())
        options = AgentOptions(
            project_dir=demo_project,
            interactive=True,
            transcript=True,
            sessions_dir=sessions,
            permission_mode="bypassPermissions",
        )
        session = AgentSession(options)
        session.prepare()
        asyncio.run(run(PLAN, AgentApp(options, session=session), sessions, report))  # its own loop, closed after
        finish(report)

    assert (report.compactions, report.rewinds) == (PLAN.compactions, PLAN.rewinds)
    # nothing left behind: descriptors, threads and child processes are back where they started
    assert report.end["fds"] <= report.start["fds"], (report.start, report.end)
    assert report.end["threads"] <= report.start["threads"], (report.start, report.end)
    # (the suite may have a child of its own running meanwhile: the SDK 2.x inner run started at collection)
    assert report.end["children"] <= report.start["children"], (report.start, report.end)
    # the widgets mounted stay bounded however many turns went by
    assert report.widgets_max < MAX_MOUNTED_TURNS * 40, report.widgets_max
    # the transcript reloads to the history the session ended with
    assert report.transcript is not None and report.transcript.exists()
    resumed = AgentSession(
        AgentOptions(project_dir=demo_project, interactive=True, transcript=False, sessions_dir=sessions)
    )
    resumed.resume(report.transcript)
    assert resumed.messages == report.messages
    resumed.close()
    assert not os.environ.get("SOAK_KEEP") or print(report)  # for a look at the figures: SOAK_KEEP=1 pytest -s
