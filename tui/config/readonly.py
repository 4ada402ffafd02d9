"""The built-in set of read-only shell commands that run without asking.

A command counts only with arguments that keep it read-only (`find` without `-exec`
or `-delete`, `sort` without `-o`, `git branch` that lists); redirections and `tee`
are checked separately as writes.
"""

from __future__ import annotations

from tui.config.bash_parse import SimpleCommand

PLAIN = frozenset(
    """
    ls cat head tail wc grep egrep fgrep rg pwd echo printf which type file stat du df tree
    cut diff basename dirname realpath readlink true false cd pushd popd test [ whoami id
    uname printenv nl tac rev tr column cmp comm md5sum sha1sum sha256sum sha512sum jq seq
    sleep ps od hexdump tee env
    """.split()
)
FIND_ACTIONS = {"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"}
GIT_READ_ONLY = {
    "status", "log", "diff", "show", "rev-parse", "ls-files", "blame", "describe", "shortlog",
    "grep", "cat-file", "ls-tree", "merge-base", "name-rev", "show-ref", "rev-list", "whatchanged",
}
GIT_GLOBAL_WITH_VALUE = {"-C", "--git-dir", "--work-tree"}
BRANCH_LIST_FLAGS = {
    "-a", "--all", "-r", "--remotes", "-v", "-vv", "--verbose", "--list", "-l", "--show-current",
    "--merged", "--no-merged", "--contains", "--no-contains", "--no-color", "--color",
}


def is_read_only(cmd: SimpleCommand) -> bool:
    """True when this simple command (already unwrapped) never changes anything."""
    if cmd.expands or not cmd.argv:
        return False
    name, args = cmd.argv[0], cmd.argv[1:]
    if name == "command":
        return len(args) >= 1 and args[0] in ("-v", "-V")
    if name == "git":
        return _git_read_only(args)
    if name == "find":
        return not any(a in FIND_ACTIONS for a in args)
    if name == "sort":
        return not any(a == "-o" or a.startswith("--output") or (a.startswith("-o") and len(a) > 2) for a in args)
    if name == "uniq":
        return len([a for a in args if not a.startswith("-")]) <= 1
    if name == "date":
        return not any(a in ("-s", "--set") or a.startswith("--set=") or not (a.startswith("-") or a.startswith("+")) for a in args)
    if name == "hostname":
        return all(a.startswith("-") for a in args)
    if name == "tree":
        return "-o" not in args
    if name == "rg":
        return not any(a == "--pre" or a.startswith("--pre=") for a in args)
    if name == "env":
        return True  # with a command, `env` was stripped before this point
    return name in PLAIN


def _git_read_only(args: list[str]) -> bool:
    i = 0
    while i < len(args) and args[i].startswith("-"):
        if args[i] in ("-c", "--config-env") or args[i].startswith("--exec-path"):
            return False  # `-c core.pager=…` can run anything
        i += 2 if args[i] in GIT_GLOBAL_WITH_VALUE else 1
    if i >= len(args):
        return False
    sub, rest = args[i], args[i + 1 :]
    if any(a.startswith("--output") or a == "--ext-diff" for a in rest):
        return False
    if sub in GIT_READ_ONLY:
        return True
    if sub == "branch":
        return all(a in BRANCH_LIST_FLAGS for a in rest) or "--list" in rest or "-l" in rest
    if sub in ("remote", "tag", "stash", "worktree", "reflog"):
        listing = {"remote": {"-v", "show", "get-url"}, "tag": {"-l", "--list", "-n"},
                   "stash": {"list", "show"}, "worktree": {"list"}, "reflog": {"show"}}[sub]
        return (not rest and sub != "stash") or (bool(rest) and rest[0] in listing)
    if sub == "config":
        return bool(rest) and rest[0] in ("--get", "--get-all", "--list", "-l", "--get-regexp")
    return False
