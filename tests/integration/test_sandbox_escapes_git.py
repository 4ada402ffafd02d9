"""The sandbox escape suite, git-dir classes: a contained command must not change what git reads later, outside.

Each attack plants a program (`core.fsmonitor`, a hook) where the user's next `git status` or
`git commit` would run it: by renaming `.git` and building a new one, turning `.git` into a
`gitdir:` file, re-pointing `commondir`, a worktree's or a submodule's git dir, `core.hooksPath`,
or a config file git includes. After the attack the test runs git as the user would, outside
any sandbox, and looks for the program's marker. Every attack is shown to work with the sandbox
off, and to be stopped with it on, in bypassPermissions and default mode, in both launch modes.
"""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tui.agent.loop.dispatch import Dispatcher
from tui.config.permissions import PermissionPolicy
from tui.config.sandbox_settings import SandboxSettings
from tui.sandbox import runtime
from tui.tools.base import SessionState, ToolContext
from tui.tools.bash import BashTool

pytestmark = pytest.mark.skipif(
    not runtime.SandboxRuntime().supported(), reason="no Landlock >= 4 / user namespaces here"
)

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "protocol.file.allow=always"]
EVIL = "printf '#!/bin/sh\\ntouch {marker}\\n' > evil.sh; chmod +x evil.sh; "
FSMON = "printf '[core]\\n\\tfsmonitor = %s\\n' \"$PWD/evil.sh\""


def evil_repo(name: str) -> str:
    """Shell: a bare repository at `name` whose config runs evil.sh on `git status`."""
    return (
        f"git init -q --bare {name} && git --git-dir={name} config core.bare false && "
        f'git --git-dir={name} config core.fsmonitor "$PWD/evil.sh"'
    )


def _git(*args: str | Path, cwd: Path) -> None:
    subprocess.run([*GIT, *map(str, args)], cwd=cwd, check=True, capture_output=True)


def _repo(path: Path) -> Path:
    _git("init", "-q", path, cwd=path.parent)
    (path / "f.txt").write_text("x\n")
    _git("add", "f.txt", cwd=path)
    _git("commit", "-qm", "one", cwd=path)
    return path


@dataclass
class World:
    """A project in one of several git layouts, the places the user runs git in, and the marker."""

    base: Path
    proj: Path
    probes: list[Path]
    marker: Path

    def user_runs_git(self) -> bool:
        """`git status` and `git commit` in every probe, outside any sandbox; True when a planted program ran."""
        for probe in self.probes:
            subprocess.run([*GIT, "status"], cwd=probe, capture_output=True)
            subprocess.run([*GIT, "commit", "-q", "--allow-empty", "-m", "probe"], cwd=probe, capture_output=True)
        return self.marker.exists()


def make_world(base: Path, layout: str, monkeypatch: pytest.MonkeyPatch) -> World:
    (base / "home").mkdir()
    monkeypatch.setenv("HOME", str(base / "home"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    proj = base / "proj"
    probes = [proj]
    if layout == "is-worktree":  # the project is a linked worktree: its `.git` is a file
        main = _repo(base / "main")
        _git("worktree", "add", "-q", proj, "-b", "side", cwd=main)
    else:
        _repo(proj)
    if layout == "dotgit-link":  # `.git` is a link to a git dir kept elsewhere
        (proj / ".git").rename(base / "gitstore")
        (proj / ".git").symlink_to("../gitstore")
    if layout == "worktree":  # a linked worktree of the project, outside it: its git dir is in the project's .git
        _git("config", "extensions.worktreeConfig", "true", cwd=proj)
        _git("worktree", "add", "-q", base / "wt", "-b", "side", cwd=proj)
        probes.append(base / "wt")
    elif layout == "submodule":
        _repo(base / "subsrc")
        _git("submodule", "add", "-q", "../subsrc", "sub", cwd=proj)
        _git("commit", "-qm", "sub", cwd=proj)
        probes.append(proj / "sub")
    elif layout in ("hooks-path", "hooks-path-missing"):
        _git("config", "core.hooksPath", ".githooks", cwd=proj)
        if layout == "hooks-path":
            (proj / ".githooks").mkdir()
            (proj / ".githooks" / "pre-commit").write_text("#!/bin/sh\nexit 0\n")
            (proj / ".githooks" / "pre-commit").chmod(0o755)
    elif layout == "include":
        (proj / "team.gitconfig").write_text("[user]\n\tname = team\n")
        _git("config", "include.path", "../team.gitconfig", cwd=proj)
    elif layout == "include-missing":
        _git("config", "includeIf.onbranch:master.path", "../local.gitconfig", cwd=proj)
        _git("config", "--add", "includeIf.onbranch:main.path", "../local.gitconfig", cwd=proj)
    elif layout == "worktree-config":
        _git("config", "extensions.worktreeConfig", "true", cwd=proj)
    elif layout == "global-in-project":
        (proj / ".team-global.gitconfig").write_text("[user]\n\tname = team\n")
        monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(proj / ".team-global.gitconfig"))
    return World(base, proj, probes, base / "pwned")


@dataclass
class GitAttack:
    """One way to make git outside run a program: the layout it needs and the command."""

    name: str
    layout: str
    command: str


ATTACKS = [
    GitAttack(
        "rename .git and build a new one",
        "plain",
        'mv .git .git-old; git init -q . && git config core.fsmonitor "$PWD/evil.sh"',
    ),
    GitAttack(
        ".git turned into a gitdir: file",
        "plain",
        f"{evil_repo('evil-gd')}; mv .git .git-old; echo 'gitdir: evil-gd' > .git",
    ),
    GitAttack(
        "a worktree's .git file re-pointed",
        "is-worktree",
        f'{evil_repo("evil-gd")}; echo "gitdir: $PWD/evil-gd" > .git',
    ),
    GitAttack("a .git link re-pointed", "dotgit-link", f"{evil_repo('evil-gd')}; ln -sfn evil-gd .git"),
    GitAttack("commondir made", "plain", f'{evil_repo("evil-cd")}; echo "$PWD/evil-cd" > .git/commondir'),
    GitAttack(
        "a worktree's commondir re-pointed",
        "worktree",
        f'{evil_repo("evil-cd")}; echo "$PWD/evil-cd" > .git/worktrees/wt/commondir',
    ),
    GitAttack(
        "a worktree's git dir swapped",
        "worktree",
        f"{evil_repo('evil-cd')}; mv .git/worktrees/wt .git/worktrees/old; mkdir -p .git/worktrees/wt && "
        "cp .git/worktrees/old/HEAD .git/worktrees/old/gitdir .git/worktrees/wt/ && "
        'echo "$PWD/evil-cd" > .git/worktrees/wt/commondir',
    ),
    GitAttack("a worktree's config.worktree", "worktree", f"{FSMON} > .git/worktrees/wt/config.worktree"),
    GitAttack(
        "a submodule's .git file re-pointed",
        "submodule",
        f'{evil_repo("evil-sm")} && git --git-dir=evil-sm config core.worktree "$PWD/sub"; '
        'echo "gitdir: $PWD/evil-sm" > sub/.git',
    ),
    GitAttack("a submodule's git dir config", "submodule", f"{FSMON} >> .git/modules/sub/config"),
    GitAttack(
        "a submodule's hooks",
        "submodule",
        "mkdir -p .git/modules/sub/hooks; cp evil.sh .git/modules/sub/hooks/pre-commit",
    ),
    GitAttack(
        "a submodule's git dir swapped",
        "submodule",
        "mv .git/modules/sub .git/modules/old; git init -q --bare .git/modules/sub && "
        "git --git-dir=.git/modules/sub config core.bare false && "
        "git --git-dir=.git/modules/sub config core.worktree ../../../sub && "
        'git --git-dir=.git/modules/sub config core.fsmonitor "$PWD/evil.sh"',
    ),
    GitAttack(
        "a new gitlink whose repository runs a program",
        "plain",
        'git init -q nested && git -C nested config core.fsmonitor "$PWD/evil.sh" && '
        "git -C nested -c user.name=t -c user.email=t@t commit -q --allow-empty -m n && git add nested",
    ),
    GitAttack("a hook in the core.hooksPath folder", "hooks-path", "cp evil.sh .githooks/pre-commit"),
    GitAttack(
        "the core.hooksPath folder swapped",
        "hooks-path",
        "mv .githooks .githooks-old; mkdir -p .githooks && cp evil.sh .githooks/pre-commit",
    ),
    GitAttack(
        "the core.hooksPath folder made", "hooks-path-missing", "mkdir -p .githooks && cp evil.sh .githooks/pre-commit"
    ),
    GitAttack("core.fsmonitor in an included file", "include", f"{FSMON} >> team.gitconfig"),
    GitAttack("core.fsmonitor in an include made", "include-missing", f"{FSMON} > local.gitconfig"),
    GitAttack("core.fsmonitor in config.worktree", "worktree-config", f"{FSMON} > .git/config.worktree"),
    GitAttack("core.fsmonitor in the global config", "global-in-project", f"{FSMON} >> .team-global.gitconfig"),
    GitAttack("core.fsmonitor by git config", "plain", 'git config core.fsmonitor "$PWD/evil.sh"'),
]


@pytest.fixture
def sandbox_for() -> Iterator[object]:
    previous = runtime.current()

    def use(proj: Path, enabled: bool) -> None:
        runtime._current.close()
        runtime._current = runtime.SandboxRuntime(SandboxSettings(enabled=enabled), str(proj))

    yield use
    runtime._current.close()
    runtime._current = previous


def run_bash(proj: Path, command: str, mode: str) -> str:
    """One Bash call through the dispatcher (non-interactive: a call that would ask is refused)."""
    state = SessionState(project_dir=proj)
    dispatcher = Dispatcher(
        {"Bash": BashTool()},
        PermissionPolicy(mode=mode, project_dir=proj),
        lambda _id: ToolContext(project_dir=proj, state=state),
        lambda e: None,
        interactive=False,
        parallel=False,
    )
    block = {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": command, "timeout": 30000}}
    return str(dispatcher.run([block], threading.Event(), {}).results[0]["content"])


def attack(world: World, command: str, mode: str) -> tuple[str, bool]:
    """Run the attack, then git as the user would: (the tool result, whether a planted program ran)."""
    text = run_bash(world.proj, EVIL.format(marker=world.marker) + command, mode)
    if world.marker.exists():  # run by the attack itself, not by the user's git: not what is tested
        world.marker.unlink()
    return text, world.user_runs_git()


@pytest.mark.parametrize("case", ATTACKS, ids=[a.name for a in ATTACKS])
def test_each_attack_works_with_the_sandbox_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sandbox_for, case: GitAttack
) -> None:
    world = make_world(tmp_path, case.layout, monkeypatch)
    sandbox_for(world.proj, False)
    text, leaked = attack(world, case.command, "bypassPermissions")
    assert leaked, text


@pytest.mark.parametrize("launch", ["clone", "fork"])
@pytest.mark.parametrize("mode", ["bypassPermissions", "default"])
@pytest.mark.parametrize("case", ATTACKS, ids=[a.name for a in ATTACKS])
def test_each_attack_is_stopped_by_the_sandbox(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sandbox_for, case: GitAttack, mode: str, launch: str
) -> None:
    if launch == "fork":
        monkeypatch.setenv("AGENT_TUI_SANDBOX_LAUNCH", "fork")
    world = make_world(tmp_path, case.layout, monkeypatch)
    sandbox_for(world.proj, True)
    text, leaked = attack(world, case.command, mode)
    assert "needs approval" not in text and "was not granted" not in text, text  # contained: no dialog
    assert not leaked, text
    assert "Sandbox: blocked" in text, text  # and the result says what was kept


@pytest.mark.parametrize("layout", ["plain", "worktree", "submodule", "hooks-path", "include"])
def test_ordinary_git_work_still_works_in_each_layout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sandbox_for, layout: str
) -> None:
    world = make_world(tmp_path, layout, monkeypatch)
    sandbox_for(world.proj, True)
    text = run_bash(
        world.proj,
        "echo more >> f.txt && git status --short && git add -A && "
        "git -c user.name=t -c user.email=t@t commit -qm work && git log --oneline | wc -l && "
        "git branch -q topic && git stash list && git gc -q && echo all-ok",
        "default",
    )
    assert "all-ok" in text and "Sandbox: blocked" not in text, text


def test_a_command_that_times_out_or_is_interrupted_is_checked_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sandbox_for
) -> None:
    """The check runs however the command ends: a timeout kills the tree, then what it made is removed."""
    world = make_world(tmp_path, "plain", monkeypatch)
    sandbox_for(world.proj, True)
    command = EVIL.format(marker=world.marker) + f'{evil_repo("evil-cd")}; echo "$PWD/evil-cd" > .git/commondir; '
    ctx = ToolContext(project_dir=world.proj, state=SessionState(project_dir=world.proj))
    result = BashTool().run({"command": command + "echo made; sleep 60", "timeout": 1500}, ctx)
    assert result.meta["timed_out"] and "creating" in result.text() and ".git/commondir" in result.text()
    assert not (world.proj / ".git" / "commondir").exists() and not world.user_runs_git()

    from tui.tools.base import ToolInterrupted

    ctx.cancel = threading.Event()
    ctx.emit_output = lambda text, stream="stdout": ctx.cancel.set() if "made" in text else None
    with pytest.raises(ToolInterrupted):
        BashTool().run({"command": command + "echo made; sleep 60"}, ctx)
    assert not (world.proj / ".git" / "commondir").exists() and not world.user_runs_git()
