"""Glob and Grep on ripgrep: gitignore, mtime order, caps, every Grep mode and flag."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tui.tools.base import ToolContext, ToolError
from tui.tools.glob_tool import GlobTool, NewestFiles, expand_braces
from tui.tools.grep import GrepTool, split_globs
from tui.tools.ripgrep import COMMON_FLAGS, age_keys, find_rg, run_rg, search_flags

glob, grep = GlobTool(), GrepTool()


@pytest.fixture
def tree(project: Path) -> Path:
    files = {
        "src/app.py": "import os\n# TODO: wire config\ndef main():\n    return 1\n",
        "src/util.py": "def helper():\n    pass  # todo lower\n",
        "src/web/page.ts": "// TODO ts\nexport const x = 1;\n",
        "README.md": "# Title\nTODO docs\n",
        "build/out.py": "# TODO generated\n",
        ".github/ci.yml": "on: push # TODO\n",
        ".gitignore": "build/\n*.log\n",
        "debug.log": "TODO in a log\n",
    }
    for i, (name, text) in enumerate(files.items()):
        path = project / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        os.utime(path, (1_000_000 + i, 1_000_000 + i))  # later in the dict = newer
    return project


def lines(text: str) -> list[str]:
    return text.split("\n")


def test_rg_is_found() -> None:
    assert find_rg() is not None


def test_glob_respects_gitignore_and_sorts_newest_first(tree: Path, ctx: ToolContext) -> None:
    result = glob.run({"pattern": "**/*.py"}, ctx)
    assert lines(result.text()) == ["src/util.py", "src/app.py"]  # build/ is ignored


def test_glob_name_pattern_matches_at_any_depth_and_hidden(tree: Path, ctx: ToolContext) -> None:
    assert lines(glob.run({"pattern": "*.yml"}, ctx).text()) == [".github/ci.yml"]
    assert glob.run({"pattern": "*.log"}, ctx).text() == "No files found"


def test_glob_with_folder_pattern_and_braces(tree: Path, ctx: ToolContext) -> None:
    assert lines(glob.run({"pattern": "src/**/*.{py,ts}"}, ctx).text()) == [
        "src/web/page.ts",
        "src/util.py",
        "src/app.py",
    ]
    assert lines(glob.run({"pattern": "src/*.py"}, ctx).text()) == ["src/util.py", "src/app.py"]


def test_glob_in_subfolder_gives_project_relative_paths(tree: Path, ctx: ToolContext) -> None:
    assert lines(glob.run({"pattern": "*.ts", "path": "src"}, ctx).text()) == ["src/web/page.ts"]
    assert lines(glob.run({"pattern": str(tree / "src" / "*.py")}, ctx).text()) == ["src/util.py", "src/app.py"]


def test_glob_caps_at_100_with_note(project: Path, ctx: ToolContext) -> None:
    for i in range(130):
        (project / f"f{i:03}.txt").write_text("x")
        os.utime(project / f"f{i:03}.txt", (1_000_000 + i, 1_000_000 + i))
    text = glob.run({"pattern": "*.txt"}, ctx).text()
    shown = [line for line in lines(text) if line.endswith(".txt")]
    assert len(shown) == 100 and shown[0] == "f129.txt" and shown[-1] == "f030.txt"
    assert "truncated" in text and "130" in text


def test_glob_errors(tree: Path, ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match=r"does not exist.*src"):
        glob.run({"pattern": "*.py", "path": "srcc"}, ctx)
    with pytest.raises(ToolError, match="directory"):
        glob.run({"pattern": "*.py", "path": "README.md"}, ctx)
    with pytest.raises(ToolError):
        glob.run({"pattern": ""}, ctx)


def test_grep_files_with_matches_is_default(tree: Path, ctx: ToolContext) -> None:
    text = grep.run({"pattern": "TODO"}, ctx).text()
    assert lines(text) == ["Found 4 files", ".github/ci.yml", "README.md", "src/web/page.ts", "src/app.py"]


def test_grep_content_with_line_numbers_and_context(tree: Path, ctx: ToolContext) -> None:
    text = grep.run({"pattern": "TODO: wire", "output_mode": "content", "-C": 1}, ctx).text()
    assert lines(text) == ["src/app.py-1-import os", "src/app.py:2:# TODO: wire config", "src/app.py-3-def main():"]
    text = grep.run({"pattern": "TODO: wire", "output_mode": "content", "-n": False, "-A": 1}, ctx).text()
    assert lines(text) == ["src/app.py:# TODO: wire config", "src/app.py-def main():"]
    text = grep.run({"pattern": "def main", "output_mode": "content", "-B": 2}, ctx).text()
    assert lines(text)[0] == "src/app.py-1-import os"


def test_grep_case_folding_and_count(tree: Path, ctx: ToolContext) -> None:
    text = grep.run({"pattern": "todo", "-i": True, "output_mode": "count", "path": "src"}, ctx).text()
    assert sorted(lines(text)[:3]) == ["src/app.py:1", "src/util.py:1", "src/web/page.ts:1"]
    assert "Found 3 total" in text
    assert grep.run({"pattern": "todo", "path": "src"}, ctx).text() == "Found 1 file\nsrc/util.py"


def test_grep_glob_and_type_filters_keep_gitignore(tree: Path, ctx: ToolContext) -> None:
    assert grep.run({"pattern": "TODO", "glob": "*.py"}, ctx).text() == "Found 1 file\nsrc/app.py"
    assert grep.run({"pattern": "TODO", "type": "py"}, ctx).text() == "Found 1 file\nsrc/app.py"
    assert grep.run({"pattern": "TODO", "glob": "*.{ts,md}"}, ctx).text() == "Found 2 files\nREADME.md\nsrc/web/page.ts"
    assert grep.run({"pattern": "TODO", "glob": "src/**/*.ts"}, ctx).text() == "Found 1 file\nsrc/web/page.ts"


def test_grep_head_limit(tree: Path, ctx: ToolContext) -> None:
    text = grep.run({"pattern": "TODO", "head_limit": 2}, ctx).text()
    assert lines(text)[:3] == ["Found 4 files", ".github/ci.yml", "README.md"] and "head_limit" in text
    text = grep.run({"pattern": ".", "output_mode": "content", "path": "src/app.py", "head_limit": 2}, ctx).text()
    assert lines(text)[:2] == ["src/app.py:1:import os", "src/app.py:2:# TODO: wire config"] and "head_limit" in text


def test_grep_multiline(tree: Path, ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="multiline"):
        grep.run({"pattern": "config\ndef", "output_mode": "content"}, ctx)
    text = grep.run({"pattern": "config\ndef", "multiline": True, "output_mode": "content"}, ctx).text()
    assert lines(text) == ["src/app.py:2:# TODO: wire config", "src/app.py:3:def main():"]
    text = grep.run({"pattern": r"wire config.def main", "multiline": True, "output_mode": "content"}, ctx).text()
    assert lines(text) == ["src/app.py:2:# TODO: wire config", "src/app.py:3:def main():"]
    assert grep.run({"pattern": r"wire config.def main", "output_mode": "content"}, ctx).text() == "No matches found"


def test_grep_pattern_starting_with_dash(project: Path, ctx: ToolContext) -> None:
    (project / "f.txt").write_text("use --force here\n")
    assert grep.run({"pattern": "--force", "output_mode": "content"}, ctx).text() == "f.txt:1:use --force here"


def test_grep_errors_are_one_sentence(tree: Path, ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match=r"Invalid regular expression.*escape"):
        grep.run({"pattern": "foo(("}, ctx)
    with pytest.raises(ToolError, match="unrecognized file type"):
        grep.run({"pattern": "x", "type": "nosuchtype"}, ctx)
    with pytest.raises(ToolError, match="output_mode"):
        grep.run({"pattern": "x", "output_mode": "lines"}, ctx)
    with pytest.raises(ToolError, match="does not exist"):
        grep.run({"pattern": "x", "path": "nope"}, ctx)


def test_grep_output_is_capped(project: Path, ctx: ToolContext) -> None:
    (project / "many.txt").write_text("match line with some padding text\n" * 5000)
    text = grep.run({"pattern": "match", "output_mode": "content"}, ctx).text()
    assert len(text) < 31_000 and "Output cut at 30,000 characters" in text


def test_grep_outside_project_uses_absolute_paths(tmp_path: Path, ctx: ToolContext) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "x.txt").write_text("needle\n")
    assert grep.run({"pattern": "needle", "path": str(other)}, ctx).text() == f"Found 1 file\n{other / 'x.txt'}"


def test_labels(tree: Path, ctx: ToolContext) -> None:
    assert grep.label({"pattern": "TODO", "path": "src"}, ctx) == "Grep TODO in src/"
    assert grep.label({"pattern": "TODO"}, ctx) == "Grep TODO"
    assert glob.label({"pattern": "**/*.py"}, ctx) == "Glob **/*.py"
    assert glob.is_concurrency_safe({}) and grep.is_concurrency_safe({})


def test_glob_helpers() -> None:
    assert split_globs("*.ts, *.{js,jsx} !*.min.js") == ["*.ts", "*.{js,jsx}", "!*.min.js"]
    assert expand_braces("src/{a,b}/*.{py,pyi}") == ["src/a/*.py", "src/a/*.pyi", "src/b/*.py", "src/b/*.pyi"]


@pytest.mark.parametrize("pattern", ["!", "{", "[z-a]"])
def test_glob_bad_patterns_are_tool_errors(tree: Path, ctx: ToolContext, pattern: str) -> None:
    with pytest.raises(ToolError):
        glob.run({"pattern": pattern}, ctx)


def test_run_rg_streams_every_line_once_in_batches(project: Path, ctx: ToolContext) -> None:
    names = {f"folder_{i % 7}/a_fairly_long_file_name_to_fill_the_pipe_{i:05}.txt" for i in range(3000)}
    for name in names:
        (project / name).parent.mkdir(exist_ok=True)
        (project / name).write_text("x")
    batches: list[list[bytes]] = []
    result = run_rg([*COMMON_FLAGS, "--files"], project, ctx, on_lines=batches.append)
    seen = [name.decode() for batch in batches for name in batch]
    assert sorted(seen) == sorted(names) and result.line_count == 3000 and result.lines == []
    assert result.returncode == 0 and len(batches) > 1  # ~200 KB of names cannot come in one read


def test_newest_files_keeps_the_newest_across_batches_with_ties_by_name(project: Path) -> None:
    for i in range(1000):
        (project / f"f{i:04}").write_text("x")
        os.utime(project / f"f{i:04}", (1_000_000 + i // 2, 1_000_000 + i // 2))  # pairs share a time
    newest = NewestFiles(None)
    fd = os.open(project, os.O_RDONLY | os.O_DIRECTORY)
    try:
        names = [f"f{i:04}".encode() for i in range(1000)]
        for start in range(0, 1000, 37):  # out-of-order batches, and a name gone before its stat
            newest.add(names[start : start + 37][::-1], fd)
        newest.add([b"gone"], fd)
        assert age_keys([b"gone", b"f0002"], fd) == [0.0, -1_000_001.0]
    finally:
        os.close(fd)
    expected = [f"f{i:04}" for i in range(998, 898, -2) for i in (i, i + 1)]
    assert newest.count == 1001 and newest.names() == expected


def test_grep_files_sorted_newest_first_ties_by_name_and_undecodable_names(project: Path, ctx: ToolContext) -> None:
    for name, when in (("b.txt", 5), ("a.txt", 5), ("c.txt", 9), ("old.txt", 1)):
        (project / name).write_text("needle\n")
        os.utime(project / name, (1_000_000 + when, 1_000_000 + when))
    odd = os.fsencode(project) + b"/caf\xe9.txt"  # not UTF-8: stat must still find it
    with open(odd, "wb") as f:
        f.write(b"needle\n")
    os.utime(odd, (1_000_100, 1_000_100))
    text = grep.run({"pattern": "needle"}, ctx).text()
    assert lines(text) == ["Found 5 files", "$'caf\\xe9.txt'", "c.txt", "a.txt", "b.txt", "old.txt"]
    assert lines(glob.run({"pattern": "*.txt"}, ctx).text()) == [
        "$'caf\\xe9.txt'",
        "c.txt",
        "a.txt",
        "b.txt",
        "old.txt",
    ]


def test_git_info_exclude_with_patterns_is_still_honoured(project: Path, ctx: ToolContext) -> None:
    (project / ".git" / "info").mkdir(parents=True)
    (project / ".git" / "info" / "exclude").write_text("# git's default comments only\n\n")
    (project / "src").mkdir()
    for name in ("keep.py", "secret.py", "src/other.py"):
        (project / name).write_text("needle\n")
    assert "--no-ignore-exclude" in search_flags(project) and "--no-ignore-exclude" in search_flags(project / "src")
    (project / ".git" / "info" / "exclude").write_text("# mine\nsecret.py\n")
    assert "--no-ignore-exclude" not in search_flags(project / "src")  # an exclude above the root counts too
    assert sorted(lines(glob.run({"pattern": "**/*.py"}, ctx).text())) == ["keep.py", "src/other.py"]
    assert sorted(lines(grep.run({"pattern": "needle"}, ctx).text())[1:]) == ["keep.py", "src/other.py"]


def test_grep_count_totals_cover_every_file_even_when_the_list_is_cut(tree: Path, ctx: ToolContext) -> None:
    text = grep.run({"pattern": "todo", "-i": True, "output_mode": "count", "path": "src", "head_limit": 1}, ctx).text()
    assert lines(text)[0] == "src/app.py:1"  # sorted by path, so the same on every run
    assert "Found 3 total matching lines across 3 files." in text
    assert "head_limit" in text


@pytest.mark.parametrize("mode", ["files_with_matches", "content", "count"])
def test_grep_with_no_file_to_search_is_no_match_not_an_error(project: Path, ctx: ToolContext, mode: str) -> None:
    """An empty folder, or filters no file passes: rg says "No files were searched" and exits 2; that is no match.

    (Grep showed ✘ "Grep failed: No files were searched…" there; Claude Code answers "No files found".)
    """
    empty = "No files found" if mode == "files_with_matches" else "No matches found"
    for tool_input in ({}, {"glob": "*.py"}, {"type": "rust"}):
        result = grep.run({"pattern": "TODO", "output_mode": mode, **tool_input}, ctx)
        assert not result.is_error and result.text() == empty, (tool_input, result.text())
    (project / "notes.txt").write_text("no match here\n")
    for tool_input in ({"glob": "*.py"}, {"type": "rust"}, {"path": "."}):
        result = grep.run({"pattern": "TODO", "output_mode": mode, **tool_input}, ctx)
        assert not result.is_error and result.text() == empty, (tool_input, result.text())
