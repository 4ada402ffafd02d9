"""The prompt history on disk (per project, bounded, 0600) and Ctrl+R's reverse search, without the app."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from tui.ui.prompt_history import HistorySearch, PromptHistory, history_file


def test_history_is_kept_per_project_under_the_data_dir(tmp_path: Path) -> None:
    one, two = history_file(tmp_path / "one"), history_file(tmp_path / "two")
    assert one != two and one.parent == two.parent
    assert str(one).startswith(os.environ["XDG_DATA_HOME"])


def test_prompts_append_privately_and_load_oldest_first(tmp_path: Path) -> None:
    history = PromptHistory(tmp_path / "h" / "p.jsonl")
    assert history.load() == []
    for prompt in ("first", "second\nwith a newline", "second\nwith a newline", "third"):
        assert history.add(prompt) is None
    assert history.load() == ["first", "second\nwith a newline", "third"]  # a repeat is kept once
    assert stat.S_IMODE(os.stat(history.path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(history.path.parent).st_mode) == 0o700
    with open(history.path, "a") as handle:
        handle.write("{not json\n")
    assert history.load()[-1] == "third"  # a bad line is skipped


def test_the_file_is_bounded(tmp_path: Path) -> None:
    history = PromptHistory(tmp_path / "p.jsonl", limit=20)
    for i in range(200):
        history.add(f"prompt number {i:03d} " + "x" * 200)
    kept = history.load()
    assert len(kept) == 20 and kept[-1].startswith("prompt number 199")
    assert len(history.path.read_text().splitlines()) <= 41  # rewritten when it passes twice the limit


def test_a_write_failure_is_one_sentence(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    problem = PromptHistory(tmp_path / "file" / "p.jsonl").add("hi")
    assert (
        problem is not None and problem.startswith("The prompt history could not be saved to ") and "\n" not in problem
    )


def test_reverse_search_finds_newest_first_and_older_on_each_ctrl_r() -> None:
    search = HistorySearch(["run the tests", "fix the parser", "Run lint", "explain"])
    assert search.type("e") == "explain"  # the newest holding the query
    assert search.type("r") == "fix the parser"  # "er": the next older one that holds it
    assert search.older() == "fix the parser"
    assert search.failed and search.label() == "(failing reverse-i-search)`er': "  # nothing older: the match stays
    assert search.backspace() == "explain" and not search.failed
    assert search.backspace() is None and search.query == ""
    assert search.type("RUN") == "Run lint" and search.older() == "run the tests"  # case is ignored
    assert search.type("zzz") == "run the tests" and search.failed
    assert HistorySearch([]).type("x") is None
