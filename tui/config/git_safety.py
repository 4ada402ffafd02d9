"""Git without the repository's own programs: one helper for every git call agent-tui makes.

A repository's `.git/config` can name programs that ordinary, "read-only" commands run:
`core.fsmonitor` (every `git status`), `core.pager`, `diff.external`, textconv and filter
drivers, `core.sshCommand` … In a folder the user has not trusted, that is code from the
folder. `run_git` neutralises those settings; `config_runs_programs` tells the permission gate
whether a model's `git status` could run one (then it asks instead of counting as read-only), from
every config and git dir that command reads (git_reads.py).
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

#: settings that would run a program, pointed at nothing (`-c` wins over every config file)
NEUTRAL_CONFIG = (
    "core.fsmonitor=false",
    "core.hooksPath=/dev/null",
    "core.pager=cat",
    "diff.external=",
    "core.sshCommand=ssh",
    "core.askPass=",
    "credential.helper=",
    "core.editor=true",
    "sequence.editor=true",
    "gpg.program=gpg",
)
#: settings known not to run anything for a read-only command (lower case, as `git config --list` prints them)
HARMLESS_KEY = re.compile(
    r"core\.(repositoryformatversion|filemode|bare|logallrefupdates|ignorecase|precomposeunicode|symlinks|autocrlf|eol"
    r"|safecrlf|quotepath|abbrev|compression|sharedrepository|checkstat|trustctime|untrackedcache|splitindex"
    r"|preloadindex|commitgraph|multipackindex)"
    r"|remote\..+\.(url|fetch|pushurl|tagopt|prune|mirror)|branch\..+\.(remote|merge|rebase|pushremote|description)"
    r"|submodule\..+\.(url|active|branch)|(user|init|color|advice|extensions|pull|push|fetch|status|gc|rerere|rebase"
    r"|index|pack|column|i18n|maintenance)\.[a-z0-9.]+|lfs\.repositoryformatversion|protocol\.version"
    r"|diff\.(algorithm|renames|renamelimit|mnemonicprefix|noprefix|colormoved|indentheuristic|context|statgraphwidth)"
    r"|merge\.(ff|conflictstyle|log|renames)|commit\.(verbose|cleanup|status)|tag\.sort"
    # set anywhere, these name programs only other commands run (an editor, a credential helper, a difftool), or a
    # pager, which never runs for the Bash tool (its output is a pipe, GIT_PAGER=cat); hooks are checked on their own
    r"|alias\..+|core\.(editor|excludesfile|attributesfile|pager|whitespace|hookspath)|sequence\.editor|pager\..+"
    r"|credential\..+|url\..+\.(insteadof|pushinsteadof)|http\..+|safe\.directory|(commit|tag)\.gpgsign"
    r"|user\.signingkey|gpg\.format|(merge|diff)\.tool|(mergetool|difftool)\..+|help\.[a-z]+"
)
#: harmless-looking keys that make a read-only command reach out: a partial clone fetches missing objects on `git log -p`
REACHES_OUT = frozenset({"extensions.partialclone"})
TIMEOUT = 10.0


def git_env() -> dict[str, str]:
    """This process's environment with git's program-naming variables neutralised."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k
        not in ("GIT_EXTERNAL_DIFF", "GIT_SSH", "GIT_SSH_COMMAND", "GIT_ASKPASS", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR")
    }
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


def run_git(
    args: list[str], cwd: Path | str, timeout: float = TIMEOUT, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run git in `cwd` without running any program the repository's config names (`env`: default `git_env()`)."""
    return subprocess.run(
        safe_git_argv(args),
        cwd=cwd,
        env=git_env() if env is None else env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def config_runs_programs(cwd: Path, env: dict[str, str] | None = None) -> bool:
    """True when git in `cwd` might run a program from a config it reads or a hook (or cannot be checked)."""
    from tui.config.git_reads import git_runs_programs

    return git_runs_programs(cwd, env) is not None
