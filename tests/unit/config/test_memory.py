"""Memory files: where they are found, @imports, and the system-prompt block."""

from __future__ import annotations

from pathlib import Path

import pytest

from tui.config.memory import load_memory, memory_system_text


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "pkg" / "app").mkdir(parents=True)
    return root


def test_user_then_repo_root_then_project_and_nothing_above_the_repo(repo: Path, tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("above the repo")
    user = tmp_path / "config" / "agent-tui"
    user.mkdir(parents=True)
    (user / "CLAUDE.md").write_text("user rules")
    (repo / "AGENTS.md").write_text("root rules")
    (repo / "pkg" / "CLAUDE.md").write_text("pkg rules")
    (repo / "pkg" / "app" / "AGENTS.md").write_text("app rules")
    files = load_memory(repo / "pkg" / "app")
    assert [f.text for f in files] == ["user rules", "root rules", "pkg rules", "app rules"]
    assert all(f.imported_from is None for f in files)


def test_imports_relative_home_depth_cycles_and_code_fences(repo: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "style.md").write_text("home style")
    (repo / "docs").mkdir()
    (repo / "CLAUDE.md").write_text(
        "See @docs/a.md and @~/style.md and mail me@example.com\n"
        "```\n@docs/fenced.md\n```\nAlso `@docs/inline.md` and @missing.md\n"
    )
    (repo / "docs" / "a.md").write_text("a imports @b.md and @../CLAUDE.md")
    (repo / "docs" / "b.md").write_text("b imports @c.md")
    for name, nxt in [("c", "d"), ("d", "e"), ("e", "f"), ("f", "g"), ("g", None)]:
        (repo / "docs" / f"{name}.md").write_text(f"{name}" + (f" @{nxt}.md" if nxt else ""))
    (repo / "docs" / "fenced.md").write_text("fenced")
    (repo / "docs" / "inline.md").write_text("inline")
    files = load_memory(repo, check=lambda path, imported_from, origin: None)  # every file let in: the mechanics
    names = [f.path.name for f in files]
    assert names == ["CLAUDE.md", "a.md", "b.md", "c.md", "d.md", "e.md", "style.md"]  # depth 5 stops before f.md
    assert files[1].imported_from == repo / "CLAUDE.md"
    assert files[-1].path == home / "style.md"


def test_system_text_introduces_each_file_with_its_path(repo: Path) -> None:
    assert memory_system_text([]) == ""
    (repo / "AGENTS.md").write_text("Use tabs.\n")
    (repo / "CLAUDE.md").write_text("@AGENTS.md\nRun make test.")
    files = load_memory(repo)
    assert [f.path.name for f in files] == ["AGENTS.md", "CLAUDE.md"]  # AGENTS.md loaded once
    text = memory_system_text(files)
    assert f'<memory_file path="{repo / "AGENTS.md"}">\nUse tabs.\n</memory_file>' in text
    assert "Run make test." in text


def test_project_without_repository_reads_only_its_own_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    (tmp_path / "AGENTS.md").write_text("parent")
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "AGENTS.md").write_text("mine")
    assert [f.text for f in load_memory(tmp_path / "p")] == ["mine"]


def test_without_a_session_nothing_is_read_from_outside_the_project(repo: Path, tmp_path: Path) -> None:
    (tmp_path / "outside.txt").write_text("SECRET")
    (repo / "CLAUDE.md").write_text("@../outside.txt\n@linked.md\n@~/.netrc")
    (repo / "linked.md").symlink_to(tmp_path / "outside.txt")
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / ".netrc").write_text("SECRET")
    from tui.config.memory import load_memory_checked

    load = load_memory_checked(repo)
    assert [f.path.name for f in load.files] == ["CLAUDE.md"]
    assert all("SECRET" not in f.text for f in load.files)
    assert sorted(s.path.name for s in load.skipped) == [".netrc", "linked.md", "outside.txt"]
    assert "outside the project (it links to" in next(s for s in load.skipped if s.path.name == "linked.md").notice
