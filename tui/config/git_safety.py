"""Git without the repository's own programs: one helper for every git call agent-tui makes.

A repository's `.git/config` can name programs that ordinary, "read-only" commands run:
`core.fsmonitor` (every `git status`), `core.pager`, `diff.external`, textconv and filter
drivers, `core.sshCommand` … In a folder the user has not trusted, that is code from the
folder. `run_git` neutralises those settings; `config_runs_programs` tells the permission gate
whether a model's `git status` could run one (then it asks instead of counting as read-only).
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

#: settings that would run a program, pointed at nothing (`-c` wins over every config file)
NEUTRAL_CONFIG = (
    "core.fsmonitor=false", "core.hooksPath=/dev/null", "core.pager=cat", "diff.external=", "core.sshCommand=ssh",
    "core.askPass=", "credential.helper=", "core.editor=true", "sequence.editor=true", "gpg.program=gpg",
)
#: local settings known not to run anything (lower case, as `git config --list` prints them)
HARMLESS_KEY = re.compile(
    r"core\.(repositoryformatversion|filemode|bare|logallrefupdates|ignorecase|precomposeunicode|symlinks|autocrlf|eol"
    r"|safecrlf|quotepath|abbrev|compression|sharedrepository|checkstat|trustctime|untrackedcache|splitindex"
    r"|preloadindex|commitgraph|multipackindex)"
    r"|remote\..+\.(url|fetch|pushurl|tagopt|prune|mirror)|branch\..+\.(remote|merge|rebase|pushremote|description)"
    r"|submodule\..+\.(url|active|branch)|(user|init|color|advice|extensions|pull|push|fetch|status|gc|rerere|rebase"
    r"|index|pack|column|i18n|maintenance)\.[a-z0-9.]+|lfs\.repositoryformatversion|protocol\.version"
    r"|diff\.(algorithm|renames|renamelimit|mnemonicprefix|noprefix|colormoved|indentheuristic|context|statgraphwidth)"
    r"|merge\.(ff|conflictstyle|log|renames)|commit\.(verbose|cleanup|status)|tag\.sort"
)
TIMEOUT = 10.0


def git_env() -> dict[str, str]:
    """This process's environment with git's program-naming variables neutralised."""
    env = {k: v for k, v in os.environ.items() if k not in ("GIT_EXTERNAL_DIFF", "GIT_SSH", "GIT_SSH_COMMAND",
                                                              "GIT_ASKPASS", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR")}
    env.update(GIT_PAGER="cat", PAGER="cat", GIT_TERMINAL_PROMPT="0", GIT_OPTIONAL_LOCKS="0")
    return env


def safe_git_argv(args: list[str]) -> list[str]:
    """`git` with every program-running setting neutralised, then `args`."""
    argv = ["git", "--no-pager"]
    for setting in NEUTRAL_CONFIG:
        argv += ["-c", setting]
    if args and args[0] in ("diff", "log", "show"):
        return [*argv, args[0], "--no-ext-diff", "--no-textconv", *args[1:]]
    return [*argv, *args]


def run_git(args: list[str], cwd: Path, timeout: float = TIMEOUT) -> subprocess.CompletedProcess[str]:
    """Run git in `cwd` without running any program the repository's config names."""
    return subprocess.run(safe_git_argv(args), cwd=cwd, env=git_env(), stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=timeout, check=False)


def local_config_keys(cwd: Path) -> list[str] | None:
    """The keys set by the repository's own config (includes followed); [] outside a repo, None if unknown."""
    try:
        done = run_git(["config", "--list", "--show-scope", "--name-only", "-z"], cwd)
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return [] if "not a git repository" in done.stderr else None
    fields = done.stdout.split("\0")
    return [fields[i + 1].lower() for i in range(0, len(fields) - 1, 2) if fields[i] in ("local", "worktree")]


def config_runs_programs(cwd: Path) -> bool:
    """True when the repository at `cwd` sets anything beyond the known-harmless settings (or cannot be read)."""
    keys = local_config_keys(cwd)
    return keys is None or any(HARMLESS_KEY.fullmatch(key) is None for key in keys)
