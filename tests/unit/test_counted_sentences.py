"""Sentences with a count agree with it, and say what is true: the loop's action, the trust dialog, the demo."""

from __future__ import annotations

from pathlib import Path

from tests.fakeapi import FakeAPI
from tests.fakeapi.script import reply, tool_use
from tests.integration.helpers import make_session
from tui.agent.events import StopReasonHandled
from tui.agent.offline.answers import _explanation
from tui.agent.offline.facts import TurnFacts
from tui.trust.inventory import FolderInventory
from tui.ui.screens.trust_dialog import either_way_text


def test_one_tool_is_dispatched_without_zero_in_parallel(monkeypatch, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    script = [reply(tool_use("Read", {"file_path": "a.txt"}), stop_reason="tool_use"), reply("done")]
    with FakeAPI(script) as api:
        session, rec = make_session(monkeypatch, api.base_url, tmp_path)
        session.run_turn("read it")
    assert next(e.action for e in rec.of(StopReasonHandled)) == "dispatching 1 tool"


def test_the_trust_dialog_says_one_skill_works() -> None:
    inventory = FolderInventory.__new__(FolderInventory)
    inventory.catalog_counts = (0, 1)
    assert "its 1 skill works as prompts you type" in either_way_text(inventory)
    inventory.catalog_counts = (2, 1)
    assert "its 2 commands and 1 skill work as" in either_way_text(inventory)


def test_main_folders_come_from_the_whole_project_when_the_listing_was_cut(tmp_path: Path) -> None:
    for folder in ("tui", "docs", "tests"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "a.py").write_text("x = 1\n")
    facts = TurnFacts(glob_paths=[str(tmp_path / "tui" / "a.py")], glob_cut=True)
    line = next(line for line in _explanation(facts, tmp_path) if line.startswith("- Main folders"))
    assert "`docs/`" in line and "`tests/`" in line and "`tui/`" in line
