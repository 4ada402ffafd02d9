"""The built-in set of read-only shell commands that run without asking.

A command counts only with arguments that keep it read-only (`find` without `-exec`
or `-delete`, `sort` without `-o` or `--compress-program`, `git branch` that lists, no git
global option); redirections are checked separately as writes. A command reached through
a wrapper or an assignment that is not harmless (`SimpleCommand.plain` False) never counts.
"""

from __future__ import annotations

import re

from tui.config.bash_parse import SimpleCommand

PLAIN = frozenset(
    """
    ls cat head tail wc grep egrep fgrep rg pwd echo printf which type file stat du df tree
    cut diff basename dirname realpath readlink true false cd test [ whoami id
    uname nl tac rev tr column cmp comm md5sum sha1sum sha256sum sha512sum jq seq
    sleep ps od hexdump env
    """.split()
)
FIND_ACTIONS = {"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"}
#: `sed -n '1,5p'`: print lines by number, nothing else
SED_PRINT = re.compile(r"\d+(,\d+)?p")
GIT_READ_ONLY = {
    "status",
    "log",
    "diff",
    "show",
    "rev-parse",
    "ls-files",
    "blame",
    "describe",
    "shortlog",
    "grep",
    "cat-file",
    "merge-base",
    "rev-list",
}
#: options that make a "read-only" git command run a program, write a file or call out
GIT_RISKY = (
    "--output",
    "--ext-diff",
    "--open-files-in-pager",
    "-O",
    "--textconv",
    "--exec",
    "--show-signature",
    "--upload-pack",
    "--remote",
)
GIT_STATUS_FLAGS = {
    "-s",
    "--short",
    "-b",
    "--branch",
    "--long",
    "-v",
    "--verbose",
    "--porcelain",
    "--porcelain=v1",
    "--porcelain=v2",
    "-z",
}
#: jq options that read no other file and load no module
JQ_FLAGS = re.compile(
    r"-[rcnsejaSCM]+|--(arg|argjson|tab|indent|raw-output|compact-output|null-input|slurp|exit-status"
    r"|join-output|sort-keys|ascii-output|color-output|monochrome-output)"
)
#: sort and rg options known to only read (Claude Code asks about others, e.g. `sort -k`, `rg -z`)
SORT_FLAGS = re.compile(r"-[urnfbhVMgdis]+|--(unique|reverse|numeric-sort|ignore-case|human-numeric-sort)")
RG_FLAGS = re.compile(
    r"-[nNiSFwlcvHIsx]+|-[ABCmtTge].*|--(type|glob|iglob|max-count|context|before-context|after-context|"
    r"line-number|no-line-number|ignore-case|smart-case|fixed-strings|word-regexp|files-with-matches|count|"
    r"invert-match|no-heading|heading|color|colors|hidden|no-ignore|json|regexp|max-depth|type-not)(=.*)?"
)
BRANCH_LIST_FLAGS = {
    "-a",
    "--all",
    "-r",
    "--remotes",
    "-v",
    "-vv",
    "--verbose",
    "--list",
    "-l",
    "--show-current",
    "--merged",
    "--no-merged",
    "--contains",
    "--no-contains",
    "--no-color",
    "--color",
}


def is_read_only(cmd: SimpleCommand) -> bool:
    """True when this simple command (already unwrapped) never changes anything."""
    if cmd.expands or not cmd.argv or not cmd.plain:
        return False
    name, args = cmd.argv[0], cmd.argv[1:]
    if name == "git":
        return _git_read_only(args)
    if name == "find":
        return not any(a in FIND_ACTIONS for a in args)
    if name == "sort":
        return all(SORT_FLAGS.fullmatch(a) for a in args if a.startswith("-"))
    if name == "file":
        return not any(
            a.startswith(("-C", "--compile", "-m", "--magic", "-z", "-Z", "--uncompress"))
            or (len(a) > 1 and a[0] == "-" and a[1] != "-" and set(a[1:]) & {"C", "m", "z", "Z"})
            for a in args
        )
    if name == "jq":
        return all(JQ_FLAGS.fullmatch(a) for a in args if a.startswith("-"))
    if name in ("grep", "egrep", "fgrep", "rg") and _pattern_looks_like_option(args):
        return False
    if name == "sed":
        return sed_prints(args)
    if name == "uniq":
        return all(not a.startswith("-") for a in args) and len(args) <= 1
    if name == "date":
        return not any(a in ("-s", "--set") or a.startswith("--set=") or not a.startswith(("-", "+")) for a in args)
    if name == "hostname":
        return all(a.startswith("-") for a in args)
    if name == "tree":
        return "-o" not in args
    if name == "rg":
        return all(RG_FLAGS.fullmatch(a) for a in args if a.startswith("-"))
    if name == "env":
        return not args  # with a command it is not plain
    return name in PLAIN


def _pattern_looks_like_option(args: list[str]) -> bool:
    """`grep -e '-x'`: a pattern that reads as an option (Claude Code asks)."""
    return any(
        a in ("-e", "--regexp") and i + 1 < len(args) and args[i + 1].startswith("-") for i, a in enumerate(args)
    )


def sed_prints(args: list[str]) -> bool:
    """`sed -n '1,5p' FILE…`: the only sed call sure to print and do nothing else."""
    options = [a for a in args if a.startswith("-")]
    operands = [a for a in args if not a.startswith("-")]
    return options == ["-n"] and len(operands) >= 1 and SED_PRINT.fullmatch(operands[0]) is not None


def _git_read_only(args: list[str]) -> bool:
    if not args or args[0].startswith("-"):
        return False  # a global option (`-c core.pager=…`, `-C dir`, `--exec-path`) can change what runs
    sub, rest = args[0], args[1:]
    if any(a.startswith(GIT_RISKY) for a in rest):
        return False
    if sub == "status":
        return all(a in GIT_STATUS_FLAGS for a in rest if a.startswith("-"))
    if sub in ("log", "show") and any(a.startswith(("-L", "--no-textconv")) for a in rest):
        return False
    if sub == "grep" and any(a.startswith(("-f", "--file")) for a in rest):
        return False
    if sub in GIT_READ_ONLY:
        return True
    if sub == "branch":
        return all(a in BRANCH_LIST_FLAGS for a in rest) or "--list" in rest or "-l" in rest
    if sub in ("remote", "tag", "stash", "worktree", "reflog"):
        listing = {
            "remote": {"-v"},
            "tag": {"-l", "--list", "-n"},
            "stash": {"list", "show"},
            "worktree": {"list"},
            "reflog": {"show"},
        }[sub]
        return (not rest and sub != "stash") or (
            bool(rest) and rest[0] in listing and (sub != "stash" or len(rest) == 1)
        )
    if sub == "config":
        return bool(rest) and rest[0] in ("--get", "--get-all")
    return False
