"""Esc during a Grep that cannot finish (a FIFO .gitignore deep in the tree): the loop stops it and rg dies."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from tests.fakeapi import FakeAPI
from tests.fakeapi.script import reply, text, tool_use
from tests.integration.helpers import make_session
from tests.unit.tools.test_special_files import hanging_tree, rg_pids
from tui.agent.events import LoopStopped, ToolFinished, ToolStarted


@pytest.mark.timeout(30)
def test_the_loops_interrupt_ends_a_hanging_grep_and_kills_rg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    hanging_tree(project)
    script = [reply(text("searching"), tool_use("Grep", {"pattern": "needle"}), stop_reason="tool_use"), reply("ok")]
    with FakeAPI(script) as api:
        session, rec = make_session(monkeypatch, api.base_url, project)
        started = threading.Event()
        session.bus.subscribe(lambda e: started.set() if isinstance(e, ToolStarted) else None, inline=True)
        session.submit("find needle")
        assert started.wait(10)
        while not rg_pids(project):  # rg has started and blocks on the FIFO
            assert not session.wait(0.01)
        session.cancel()
        assert session.wait(10)
        assert rec.of(LoopStopped)[0].reason == "interrupted"
        assert [e.status for e in rec.of(ToolFinished)] == ["interrupted"]
    assert rg_pids(project) == []
