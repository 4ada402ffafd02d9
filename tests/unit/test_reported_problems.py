"""Start problems are toasted once per file content: the record under the user's state folder (issue 35)."""

from __future__ import annotations

from pathlib import Path

from tui.config.reported_problems import ReportedProblems, problem_key


def test_a_problem_is_fresh_once_then_again_when_its_file_changes(tmp_path: Path) -> None:
    broken = tmp_path / "plugin.json"
    broken.write_text("{ not json")
    problem = f"{broken}:1:3: the plugin manifest does not parse"
    other = "No plugin was loaded: the marketplace folder is gone"
    record = ReportedProblems(tmp_path / "state" / "reported-problems.json")
    assert record.fresh([problem, other]) == [problem, other]
    assert record.fresh([problem, other]) == []
    assert ReportedProblems(record.path).fresh([problem]) == []  # the next start, in any folder
    broken.write_text("{ still not json")
    assert record.fresh([problem, other]) == [problem]


def test_the_key_is_the_sentence_and_the_named_files_content(tmp_path: Path) -> None:
    named = tmp_path / "settings.json"
    named.write_text("a")
    before = problem_key(f"{named}: bad")
    assert problem_key(f"{named}: bad") == before and problem_key(f"{named}: worse") != before
    named.write_text("b")
    assert problem_key(f"{named}: bad") != before


def test_an_unwritable_record_says_every_problem(tmp_path: Path) -> None:
    (tmp_path / "state").write_text("a file where the folder should be")
    record = ReportedProblems(tmp_path / "state" / "reported-problems.json")
    assert record.fresh(["one", "two"]) == ["one", "two"]
    assert record.fresh(["one", "two"]) == ["one", "two"]
