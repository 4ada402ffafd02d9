"""The chain git follows to its config and hooks, as the sandbox finds it: config parsing, discovery, the plan's pins."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tui.sandbox import gitdirs, gitstate, plan, seatbelt

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "protocol.file.allow=always"]


def _repo(path: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    subprocess.run([*GIT, "-C", str(path), "commit", "-q", "--allow-empty", "-m", "one"], check=True)
    return path


def test_config_parsing_finds_includes_and_hooks_path_however_they_are_written(tmp_path: Path) -> None:
    config = tmp_path / "config"
    config.write_text(
        '[core]\n\thooksPath = "my hooks" ; a comment\n[include]\n\tpath = a.cfg # more\n'
        '[includeIf "gitdir:~/w/"]\n\tpath = ~/b.cfg\n[INCLUDE]path=c\\\n.cfg\n[x "y\\"z"]\n\tk = v\n'
    )
    pairs = gitdirs.parse_config(str(config))
    assert ("core.hookspath", "my hooks") in pairs and ("include.path", "a.cfg") in pairs
    assert ("includeif.gitdir:~/w/.path", "~/b.cfg") in pairs and ("include.path", "c.cfg") in pairs
    files, hooks = gitdirs.follow_includes([str(config)])
    assert str(tmp_path / "a.cfg") in files and str(tmp_path / "c.cfg") in files and hooks == ["my hooks"]


def test_discovery_follows_worktrees_submodules_and_gitlinks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    proj = _repo(tmp_path / "proj")
    _repo(tmp_path / "src")
    subprocess.run([*GIT, "-C", str(proj), "submodule", "add", "-q", "../src", "sub"], check=True, capture_output=True)
    subprocess.run(
        [*GIT, "-C", str(proj), "worktree", "add", "-q", str(tmp_path / "wt")], check=True, capture_output=True
    )
    _repo(proj / "nested")
    subprocess.run(["git", "-C", str(proj), "add", "nested"], check=True, capture_output=True)
    subprocess.run(["git", "-C", str(proj), "config", "core.hooksPath", ".githooks"], check=True)
    repos = {r.root: r for r in gitdirs.discover(str(proj), gitstate.gitlinks)}
    assert set(repos) == {str(proj), str(proj / "sub"), str(proj / "nested"), str(tmp_path / "wt")}
    assert repos[str(proj / "sub")].kind == "file" and repos[str(proj / "sub")].gitdir == str(proj / ".git/modules/sub")
    assert repos[str(tmp_path / "wt")].commondir == str(proj / ".git")
    assert (
        str(proj / ".githooks") in repos[str(proj)].hooks and str(proj / ".git/commondir") in repos[str(proj)].control
    )
    assert str(proj / ".git/worktrees/wt/commondir") in repos[str(proj)].control

    the_plan = plan.build(str(proj), str(tmp_path / "run"), [], [], abi=7, empty_file="")
    for folder in (".git", ".git/modules", ".git/modules/sub", ".git/worktrees", ".git/worktrees/wt", "nested/.git"):
        assert str(proj / folder) in the_plan.pins, folder
    assert str(proj / "sub/.git") in the_plan.read_only and str(proj / ".git/modules/sub/config") in the_plan.read_only
    assert str(proj / ".git/commondir") in the_plan.missing and str(proj / ".githooks") in the_plan.missing
    assert the_plan.pins.index(str(proj / ".git")) < the_plan.pins.index(str(proj / ".git/modules/sub"))  # outer first


def test_a_folder_of_a_larger_repository_keeps_that_repositorys_chain(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The project is a folder inside a repository: an include or hooksPath pointing into the project is kept."""
    monkeypatch.setenv("HOME", str(tmp_path))
    top = _repo(tmp_path / "top")
    (top / "proj").mkdir()
    subprocess.run(["git", "-C", str(top), "config", "include.path", "../proj/team.gitconfig"], check=True)
    the_plan = plan.build(str(top / "proj"), str(tmp_path / "run"), [], [], abi=7, empty_file="")
    assert str(top / "proj" / "team.gitconfig") in the_plan.missing
    assert str(top / "proj" / ".git") in the_plan.missing  # a repository made here would take over too


def test_seatbelt_profile_keeps_pinned_folders_in_place() -> None:
    text = seatbelt.profile(["/p"], ["/p/.git/config"], [], None, ["/p/.git"])
    assert '(deny file-write-unlink (literal "/p/.git"))' in text.splitlines()
