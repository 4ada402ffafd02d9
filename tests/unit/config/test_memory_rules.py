"""`.claude/rules/*.md`: which rules join memory at start, in Claude Code 2.1.332's order, and which wait for a file."""

from __future__ import annotations

from pathlib import Path

import pytest

from tui.config.memory import load_memory, load_memory_checked
from tui.config.memory_rules import PathRule, expand_braces, matches, reminder_text, rule_globs


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "app").mkdir()
    return root


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_rules_without_paths_join_memory_after_each_folders_claude_md_and_before_its_local_files(
    repo: Path, tmp_path: Path
) -> None:
    write(tmp_path / "home/.claude/rules/mine.md", "user rule")
    write(repo / "CLAUDE.md", "root memory")
    write(repo / ".claude/rules/b.md", "---\ndescription: unused\n---\nroot rule b")
    write(repo / ".claude/rules/a/deep.md", "root rule a/deep")
    write(repo / ".claude/rules/notes.txt", "not a rule")
    write(repo / "CLAUDE.local.md", "root local")
    write(repo / "app/CLAUDE.md", "app memory")
    write(repo / "app/.claude/rules/app.md", "app rule")
    files = load_memory(repo / "app")
    assert [f.text for f in files] == [
        "user rule",
        "root memory",
        "root rule a/deep",
        "root rule b",
        "root local",
        "app memory",
        "app rule",
    ]
    assert files[0].path == tmp_path / "home/.claude/rules/mine.md"


def test_a_rule_goes_through_the_memory_reader_imports_and_all(repo: Path) -> None:
    write(repo / "shared.md", "imported by a rule")
    write(repo / ".claude/rules/r.md", "---\npaths:\n---\nsee @../../shared.md")
    files = load_memory(repo)
    assert [(f.text, f.imported_from) for f in files] == [
        ("see @../../shared.md", None),
        ("imported by a rule", repo / ".claude/rules/r.md"),
    ]


def test_rules_with_paths_wait_and_the_user_folder_honours_claude_config_dir(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "cc"))
    write(tmp_path / "cc/rules/ts.md", '---\npaths: ["**/*.ts"]\n---\nuser ts rule\n')
    write(repo / ".claude/rules/py.md", "---\npaths:\n  - src/**/*.py\n---\npy rule\n")
    write(repo / ".claude/rules/one.md", "---\npaths: src/*.{py,pyi}, docs/*.md\n---\none\n")
    load = load_memory_checked(repo)
    files, waiting = load.files, load.waiting
    assert files == []
    assert [(r.path.name, r.globs, r.base, r.text) for r in waiting] == [
        ("ts.md", ("**/*.ts",), repo, "user ts rule\n"),
        ("one.md", ("src/*.py", "src/*.pyi", "docs/*.md"), repo, "one\n"),
        ("py.md", ("src/**/*.py",), repo, "py rule\n"),
    ]


def test_globs_match_relative_to_the_base_and_through_links(tmp_path: Path) -> None:
    base = tmp_path / "p"
    write(base / "src/pkg/m.py", "")
    (base / "link.py").symlink_to(base / "src/pkg/m.py")
    (tmp_path / "elsewhere").symlink_to(base / "src")
    rule = PathRule(base / ".claude/rules/py.md", "t", ("src/**/*.py",), base)
    assert matches(rule, base / "src/pkg/m.py")
    assert matches(rule, base / "src/../src/pkg/m.py")
    assert matches(rule, base / "link.py")  # a link in the project to a matching file
    assert matches(rule, tmp_path / "elsewhere/pkg/m.py")  # a path outside that leads into it
    assert not matches(rule, base / "tests/m.py")
    assert not matches(rule, tmp_path / "src/pkg/m.py")


def test_paths_forms_and_the_reminder_as_claude_code_sends_it(tmp_path: Path) -> None:
    assert rule_globs({"paths": ["a/*.ts", 7]}) == ("a/*.ts", "7")
    assert rule_globs({"paths": ""}) == () and rule_globs({}) == ()
    assert expand_braces("x/{a,b}/*.{c,d}") == ["x/a/*.c", "x/a/*.d", "x/b/*.c", "x/b/*.d"]
    rule = PathRule(Path("/p/.claude/rules/r.md"), "Use tabs.\n", ("*",), Path("/p"))
    assert (
        reminder_text(rule.path, rule.text)
        == "<system-reminder>\nContents of /p/.claude/rules/r.md:\n\nUse tabs.\n\n</system-reminder>\n"
    )


def test_claude_codes_user_memory_and_dot_claude_claude_md_load_in_its_order(repo: Path, tmp_path: Path) -> None:
    write(tmp_path / "home/.claude/CLAUDE.md", "user claude memory")
    write(tmp_path / "home/.claude/rules/u.md", "user rule")
    write(repo / "CLAUDE.md", "root")
    write(repo / ".claude/CLAUDE.md", "root dot-claude")
    write(repo / ".claude/rules/r.md", "root rule")
    write(repo / "CLAUDE.local.md", "root local")
    assert [f.text for f in load_memory(repo)] == [
        "user claude memory",
        "user rule",
        "root",
        "root dot-claude",
        "root rule",
        "root local",
    ]
