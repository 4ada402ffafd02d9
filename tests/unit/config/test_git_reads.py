"""In a folder not trusted, `git status` is read-only only when no config or hook git reads for it names a program.

Each case puts an fsmonitor (or a hook, or an external diff) that leaves a marker in one more
place git reads; the case first shows that a real `git` run outside agent-tui does run it, then
that the permission check asks and ran nothing itself.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.unit.config.test_bash_verdict import verdict

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]


def _script(path: Path, marker: Path) -> Path:
    path.write_text(f"#!/bin/sh\necho ran >> {marker}\n")
    path.chmod(0o755)
    return path


def _repo(path: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    (path / "f.txt").write_text("x\n")
    subprocess.run([*GIT, "-C", str(path), "add", "f.txt"], check=True)
    subprocess.run([*GIT, "-C", str(path), "commit", "-qm", "one"], check=True)
    return path


def _fsmonitor_line(script: Path) -> str:
    return f"[core]\n\tfsmonitor = {script}\n"


def submodule(repo: Path, tools: Path, marker: Path, mp: pytest.MonkeyPatch) -> None:
    """A gitlinked repository inside the project with its own fsmonitor: `git status` recurses into it."""
    sub = _repo(repo / "vendor")
    subprocess.run(["git", "-C", str(repo), "add", "vendor"], check=True, capture_output=True)
    subprocess.run(
        ["git", "-C", str(sub), "config", "core.fsmonitor", str(_script(tools / "fsmon.sh", marker))], check=True
    )


def global_config(repo: Path, tools: Path, marker: Path, mp: pytest.MonkeyPatch) -> None:
    home = tools / "home"
    home.mkdir()
    (home / ".gitconfig").write_text(_fsmonitor_line(_script(tools / "fsmon.sh", marker)))
    mp.setenv("HOME", str(home))


def xdg_config(repo: Path, tools: Path, marker: Path, mp: pytest.MonkeyPatch) -> None:
    (tools / "xdg" / "git").mkdir(parents=True)
    (tools / "xdg" / "git" / "config").write_text(_fsmonitor_line(_script(tools / "fsmon.sh", marker)))
    mp.setenv("XDG_CONFIG_HOME", str(tools / "xdg"))


def git_config_global(repo: Path, tools: Path, marker: Path, mp: pytest.MonkeyPatch) -> None:
    (repo / "team.gitconfig").write_text(_fsmonitor_line(_script(tools / "fsmon.sh", marker)))
    mp.setenv("GIT_CONFIG_GLOBAL", str(repo / "team.gitconfig"))


def git_config_system(repo: Path, tools: Path, marker: Path, mp: pytest.MonkeyPatch) -> None:
    (tools / "system.gitconfig").write_text(_fsmonitor_line(_script(tools / "fsmon.sh", marker)))
    mp.delenv("GIT_CONFIG_NOSYSTEM", raising=False)
    mp.setenv("GIT_CONFIG_SYSTEM", str(tools / "system.gitconfig"))


def git_config_count(repo: Path, tools: Path, marker: Path, mp: pytest.MonkeyPatch) -> None:
    mp.setenv("GIT_CONFIG_COUNT", "1")
    mp.setenv("GIT_CONFIG_KEY_0", "core.fsmonitor")
    mp.setenv("GIT_CONFIG_VALUE_0", str(_script(tools / "fsmon.sh", marker)))


def include_target(repo: Path, tools: Path, marker: Path, mp: pytest.MonkeyPatch) -> None:
    (repo / "shared.gitconfig").write_text(_fsmonitor_line(_script(tools / "fsmon.sh", marker)))
    subprocess.run(["git", "-C", str(repo), "config", "include.path", "../shared.gitconfig"], check=True)


def global_include_if(repo: Path, tools: Path, marker: Path, mp: pytest.MonkeyPatch) -> None:
    """The user's global config includes a file from every repository under a folder: the folder's file names a program."""
    home = tools / "home"
    home.mkdir()
    (home / ".gitconfig").write_text(f'[includeIf "gitdir:{repo.parent}/"]\n\tpath = {repo}/.team-gitconfig\n')
    (repo / ".team-gitconfig").write_text(_fsmonitor_line(_script(tools / "fsmon.sh", marker)))
    mp.setenv("HOME", str(home))


def worktree_config(repo: Path, tools: Path, marker: Path, mp: pytest.MonkeyPatch) -> None:
    subprocess.run(["git", "-C", str(repo), "config", "extensions.worktreeConfig", "true"], check=True)
    (repo / ".git" / "config.worktree").write_text(_fsmonitor_line(_script(tools / "fsmon.sh", marker)))


def index_hook(repo: Path, tools: Path, marker: Path, mp: pytest.MonkeyPatch) -> None:
    """`git status` rewrites a stale index, which runs post-index-change."""
    _script(repo / ".git" / "hooks" / "post-index-change", marker)
    os.utime(repo / "f.txt", (1, 1))


def hooks_path(repo: Path, tools: Path, marker: Path, mp: pytest.MonkeyPatch) -> None:
    (repo / ".githooks").mkdir()
    _script(repo / ".githooks" / "post-index-change", marker)
    subprocess.run(["git", "-C", str(repo), "config", "core.hooksPath", ".githooks"], check=True)
    os.utime(repo / "f.txt", (1, 1))


def external_diff(repo: Path, tools: Path, marker: Path, mp: pytest.MonkeyPatch) -> None:
    (repo / "f.txt").write_text("changed\n")
    mp.setenv("GIT_EXTERNAL_DIFF", str(_script(tools / "diff.sh", marker)))


CASES: list[tuple[Callable[..., None], str]] = [
    (submodule, "git status"),
    (global_config, "git status"),
    (xdg_config, "git status"),
    (git_config_global, "git status"),
    (git_config_system, "git status"),
    (git_config_count, "git status"),
    (include_target, "git status"),
    (global_include_if, "git status"),
    (worktree_config, "git status"),
    (index_hook, "git status"),
    (hooks_path, "git status"),
    (external_diff, "git diff"),
]


@pytest.mark.parametrize(("setup", "command"), CASES, ids=[c[0].__name__ for c in CASES])
def test_a_program_named_in_any_config_or_hook_git_reads_makes_git_ask(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, setup: Callable[..., None], command: str
) -> None:
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("HOME", str(tmp_path))  # no .gitconfig unless the case writes one
    repo = _repo(tmp_path / "proj")
    tools = tmp_path / "tools"
    tools.mkdir()
    marker = tmp_path / "marker"
    setup(repo, tools, marker, monkeypatch)

    assert verdict(repo, command, trusted=False, allow=[]) == "ask"
    assert not marker.exists()  # the check itself ran nothing
    assert verdict(repo, command, trusted=True, allow=[]) == "allow"
    subprocess.run(command.split(), cwd=repo, capture_output=True, env={**os.environ, "GIT_PAGER": "cat"})
    assert marker.exists()  # and the program is real: git outside agent-tui runs it


def test_programs_git_would_not_run_for_a_read_only_command_do_not_ask(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A user's usual global config (an editor, a credential helper, aliases, a pager) keeps `git status` read-only."""
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / ".gitconfig").write_text(
        "[user]\n\tname = t\n[core]\n\teditor = vim\n\tpager = delta\n\tfsmonitor = false\n"
        "[credential]\n\thelper = store\n[alias]\n\tst = !git status\n[diff]\n\ttool = meld\n"
    )
    repo = _repo(tmp_path / "proj")
    assert verdict(repo, "git status", trusted=False, allow=[]) == "allow"
    assert verdict(repo, "git log -1", trusted=False, allow=[]) == "allow"


def test_a_partial_clone_asks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`git log -p` in a partial clone fetches missing objects from the promisor remote."""
    repo = _repo(tmp_path / "proj")
    subprocess.run(["git", "-C", str(repo), "config", "extensions.partialClone", "origin"], check=True)
    assert verdict(repo, "git log -p", trusted=False, allow=[]) == "ask"


def test_git_diff_outside_a_repository_reads_the_global_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Outside a repository `git diff a b` compares files, with the global config's external diff."""
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / ".gitconfig").write_text(f"[diff]\n\texternal = {tmp_path}/x.sh\n")
    (tmp_path / "proj").mkdir()
    assert verdict(tmp_path / "proj", "git diff", trusted=False, allow=[]) == "ask"
