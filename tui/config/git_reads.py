"""Every config and git dir a read-only git command reads, and whether any of them names a program.

`git status` reads the system, global (or XDG) and repository config, the worktree's
`config.worktree`, their `include`/`includeIf` files, `GIT_CONFIG_*` from the environment,
and it runs `git status` again in each populated submodule (or any gitlink with a `.git`),
reading their configs too; refreshing the index runs the `post-index-change` hook. git itself
answers which configs apply (`git config --list --show-scope --show-origin`, run with the
environment the command will get), so nothing is parsed twice; a key that is not known to be
harmless, wherever it is set, is a reason to ask.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tui.config.git_safety import HARMLESS_KEY, NEUTRAL_CONFIG, REACHES_OUT, TIMEOUT, run_git

#: variables that make a read-only command run a program (`git diff` runs GIT_EXTERNAL_DIFF)
PROGRAM_ENV = ("GIT_EXTERNAL_DIFF",)
#: hooks that a read-only command runs (`git status` writes a refreshed index)
READ_HOOKS = ("post-index-change",)
#: submodules within submodules checked, at most, and in all
MAX_DEPTH = 4
MAX_REPOS = 32
_FALSE = {"false", "no", "off", "0", ""}
_NEUTRAL = {tuple(setting.lower().split("=", 1)) for setting in NEUTRAL_CONFIG}
_gitlinks_cache: dict[tuple[str, int, int, int], list[str]] = {}


def command_env(base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment a Bash command runs with (the Bash tool sets these on top of agent-tui's own)."""
    env = dict(os.environ if base is None else base)
    env.update(PAGER="cat", GIT_PAGER="cat", GIT_TERMINAL_PROMPT="0")
    return env


def git_runs_programs(cwd: Path, env: dict[str, str] | None = None, own_only: bool = False) -> str | None:
    """Why a read-only git command in `cwd` might run a program (None: it would run none); unknown counts as a reason.

    `own_only`: only what the repositories themselves hold (their config, includes, hooks), not the user's.
    """
    env = command_env() if env is None else env
    for name in () if own_only else PROGRAM_ENV:
        if env.get(name):
            return f"{name} is set"
    seen: set[str] = set()
    return _check_repo(cwd, env, 0, seen, own_only)


def _git(
    args: list[str], cwd: Path, env: dict[str, str], neutral: bool = True
) -> subprocess.CompletedProcess[str] | None:
    """git `args` in `cwd` with the command's environment; `neutral=False` for rev-parse, which must see hooksPath."""
    try:
        if neutral:
            return run_git(args, cwd, env=env)
        return subprocess.run(
            ["git", "--no-pager", *args],
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.SubprocessError, ValueError):
        return None


def _check_repo(cwd: Path, env: dict[str, str], depth: int, seen: set[str], own_only: bool = False) -> str | None:
    """The first program-naming setting or hook in the repository at `cwd` and its submodules."""
    where = _git(["rev-parse", "--show-toplevel", "--git-path", "hooks"], cwd, env, neutral=False)
    if where is None:
        return "git could not be run to check its configuration"
    if where.returncode != 0:
        if "not a git repository" in where.stderr:
            return None if own_only else _check_config(cwd, env)  # outside a repository: system and global config
        if "--show-toplevel" in where.stderr or "bare repository" in where.stderr or "work tree" in where.stderr:
            return "the repository has no work tree to check"
        return "its configuration could not be read"
    top, hooks = (where.stdout.split("\n") + ["", ""])[:2]
    if not top or top in seen:
        return None if top else "its configuration could not be read"
    seen.add(top)
    if len(seen) > MAX_REPOS:
        return f"it has more than {MAX_REPOS} submodules to check"
    if problem := _check_config(cwd, env, own_only):
        return problem
    hooks_dir = Path(hooks) if os.path.isabs(hooks) else Path(cwd) / hooks
    for hook in READ_HOOKS:
        if os.access(hooks_dir / hook, os.X_OK) and (hooks_dir / hook).is_file():
            return f"its {hook} hook ({hooks_dir / hook}) runs when git refreshes the index"
    links = _gitlinks(Path(top), env)
    if links is None:
        return "its submodules could not be listed"
    for rel in links:
        sub = Path(top) / rel
        if os.path.lexists(sub / ".git"):  # populated: `git status` runs in it too
            if depth + 1 > MAX_DEPTH:
                return f"its submodules are nested more than {MAX_DEPTH} deep"
            if problem := _check_repo(sub, env, depth + 1, seen, own_only):
                return f"submodule {rel}: {problem}"
    return None


def _check_config(cwd: Path, env: dict[str, str], own_only: bool = False) -> str | None:
    """The first setting, in any config git reads in `cwd` (`own_only`: the repository's own), that may name a program."""
    done = _git(["config", "--list", "--show-scope", "--show-origin", "-z"], cwd, env)
    if done is None or done.returncode != 0:
        return "its configuration could not be read"
    fields = done.stdout.split("\0")
    for i in range(0, len(fields) - 2, 3):
        scope, origin, entry = fields[i], fields[i + 1], fields[i + 2]
        key, _, value = entry.partition("\n")
        key = key.lower()
        if (scope == "command" and (key, value.lower()) in _NEUTRAL) or (
            own_only and scope not in ("local", "worktree")
        ):
            continue  # agent-tui's own `-c` for this check, or not the repository's
        if key in REACHES_OUT or not _harmless(key, value):
            source = origin.removeprefix("file:") if origin.startswith("file:") else f"{scope} config ({origin})"
            return f"{key} is set in {source}"
    return None


def _harmless(key: str, value: str) -> bool:
    if key == "core.fsmonitor":
        return value.strip().lower() in _FALSE
    return HARMLESS_KEY.fullmatch(key) is not None


def _gitlinks(top: Path, env: dict[str, str]) -> list[str] | None:
    """Paths of the gitlinks (submodules) in the index at `top`; cached while the index is unchanged."""
    index = _git(["rev-parse", "--git-path", "index"], top, env, neutral=False)
    if index is None or index.returncode != 0:
        return None
    path = Path(index.stdout.strip())
    path = path if path.is_absolute() else top / path
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return []
    except OSError:
        return None
    key = (str(path), st.st_ino, st.st_size, st.st_mtime_ns)
    if key in _gitlinks_cache:
        return _gitlinks_cache[key]
    done = _git(["ls-files", "--stage", "-z"], top, env)
    if done is None or done.returncode != 0:
        return None
    links = [
        entry.split("\t", 1)[1] for entry in done.stdout.split("\0") if entry.startswith("160000 ") and "\t" in entry
    ]
    _gitlinks_cache.clear()  # one project at a time
    _gitlinks_cache[key] = links
    return links
