"""The checkpoint log holds only its newest prompt checkpoints in memory; every one is still there when asked."""

from __future__ import annotations

from pathlib import Path

from tui.agent.history.checkpoints import Checkpoints


def _log(folder: Path | None, tmp_path: Path, count: int, keep: int = 5) -> Checkpoints:
    cps = Checkpoints(folder, "s1", tmp_path)
    cps.keep_prompts = keep
    for n in range(1, count + 1):
        cps.prompt(n, f"prompt number {n}", 2 * n)
    return cps


def test_older_prompt_checkpoints_leave_memory_and_are_read_back_from_the_manifest(tmp_path: Path) -> None:
    cps = _log(tmp_path / "checkpoints", tmp_path, 40)
    assert len(cps.prompts) <= 2 * cps.keep_prompts  # bounded: the old code held all 40
    every = cps.all_prompts()
    assert [p.id for p in every] == list(range(1, 41))
    assert [p.prompt for p in cps.visible_prompts()] == [f"prompt number {n}" for n in range(1, 41)]
    assert cps.current == 40
    assert cps.prompt(41, "one more", 82).id == 41  # ids go on from the newest, not from what memory holds
    cps.close()
    again = Checkpoints(tmp_path / "checkpoints", "s1", tmp_path)  # a resume reads the log back, bounded too
    assert len(again.prompts) <= 2 * again.keep_prompts
    assert [p.prompt for p in again.all_prompts()][-2:] == ["prompt number 40", "one more"]
    assert len(again.all_prompts()) == 41
    again.close()


def test_a_session_without_a_manifest_keeps_every_prompt_in_memory(tmp_path: Path) -> None:
    cps = _log(None, tmp_path, 30)
    assert len(cps.prompts) == 30
    assert [p.id for p in cps.visible_prompts()] == list(range(1, 31))
