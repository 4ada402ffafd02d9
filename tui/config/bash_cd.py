"""A `cd` in a compound command: Claude Code 2.1.332 asks when the folder it changes to makes a path unsure.

After a `cd` the checker cannot be sure which folder a relative path names, so with a `cd` among the
parts of a command (`cd src && ls`, `ls && cd src`, `cd src; cat m.py`, `cd src | ls`), it asks for:

- a second change of folder (`cd a && ls && cd ..`);
- a file command that reads a relative path (`ls`, `cat m.py`, `grep -r x`, `find`), while a `Read()` deny
  rule is configured (the file it reads could be the denied one);
- a file command that writes (`touch`, `mkdir`, `cp`, `mv`, `rm`, `tee FILE`, `sed` that edits);
- an output redirection (`> out.txt`, `/dev/null` excepted) and an input one from a relative file (`< m.py`).

These ask whatever the allow rules say. One shape is sure: a line that starts with a plain `cd DIR &&`,
where DIR is absolute, `.`, or `./…` without `..`, inside the working folders, and whose parts are joined by
`&&` alone. The rest is then checked in DIR, as any command (`cd ./src && ls`, `cd /repo/src && cat m.py`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

from tui.config.bash_parse import ParsedBash, SimpleCommand, resolve_path
from tui.config.readonly import sed_prints

CD_COMMANDS = frozenset({"cd", "pushd", "popd", "chdir"})
#: Claude Code's file commands that read the paths they are given
READERS = frozenset(
    """
    ls find cat head tail sort uniq wc cut paste column tr file stat diff awk gawk mawk nawk strings hexdump od
    base64 nl tac rev fold expand unexpand fmt comm cmp pr numfmt tsort grep egrep fgrep rg jq sha256sum
    sha1sum md5sum
    """.split()
)
#: Claude Code's file commands that write (sed too, unless it only prints)
WRITERS = frozenset({"mkdir", "touch", "rm", "rmdir", "mv", "cp", "tee"})
#: tee's targets that are no file
DEVICES = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"})

#: grep's and rg's options that take a value
SEARCH_VALUED = frozenset(
    "-m --max-count -A --after-context -B --before-context -C --context --max-depth --threads -t --type -T "
    "--type-not -g --glob --replace --exclude --include --exclude-dir".split()
)

MULTI_CD = "Multiple directory changes in one command require approval for clarity."
READ_AFTER_CD = (
    "{name} reads a file by a relative path after a cd in a compound command; which file that is cannot be "
    "resolved statically while a Read() deny rule is configured, so this needs approval."
)
WRITE_AFTER_CD = (
    "Commands that change directories and perform write operations require explicit approval to ensure paths "
    "are evaluated correctly. For security, Claude Code cannot automatically determine the final working "
    "directory when 'cd' is used in compound commands."
)
REDIRECT_AFTER_CD = (
    "Commands that change directories and write via output redirection require explicit approval to ensure "
    "paths are evaluated correctly. For security, Claude Code cannot automatically determine the final working "
    "directory when 'cd' is used in compound commands."
)
INPUT_AFTER_CD = (
    "Input redirection from '{target}' requires manual approval: the file it names depends on glob expansion "
    "or a directory change in the same command."
)


def cd_compound_problem(parsed: ParsedBash, cwd: Path, inside: Callable[[Path], bool], read_deny: bool) -> str | None:
    """Why this command asks because of a `cd` among its parts (Claude Code's words), or None.

    `inside` says whether a folder is inside the working folders; `read_deny` whether a Read deny rule is
    configured.
    """
    commands = [c for c in parsed.commands if c.argv]
    cds = [c for c in commands if _name(c) in CD_COMMANDS]
    if len(commands) < 2 or not cds:
        return None
    if len(cds) > 1:
        return MULTI_CD
    if _sure_leading_cd(parsed, commands, cwd, inside):
        return None
    for cmd in commands:
        name = _name(cmd)
        if name in CD_COMMANDS:
            continue
        for target in cmd.reads:
            if not _absolute(target):
                return INPUT_AFTER_CD.format(target=target)
        args = cmd.argv[1:]
        if name in WRITERS and (name != "tee" or [a for a in _positional(args) if a not in DEVICES]):
            return WRITE_AFTER_CD
        if name == "sed" and not sed_prints(args):
            return WRITE_AFTER_CD
        if read_deny and (name in READERS or name == "sed") and any(not _absolute(p) for p in read_paths(name, args)):
            return READ_AFTER_CD.format(name=name)
    if any(w.raw != "/dev/null" for w in parsed.writes):
        return REDIRECT_AFTER_CD
    return None


def _sure_leading_cd(
    parsed: ParsedBash, commands: list[SimpleCommand], cwd: Path, inside: Callable[[Path], bool]
) -> bool:
    """`cd DIR && …` with DIR known before it runs: the rest is checked in DIR."""
    first = commands[0]
    if (
        first.argv[:1] != ["cd"]
        or len(first.argv) != 2
        or first.redirected
        or first.forms[:1] != ["cd " + first.argv[1]]
    ):
        return False
    if len(parsed.operators) != len(commands) - 1 or any(op != "&&" for op in parsed.operators):
        return False
    target = first.argv[1]
    if any(c in target for c in "$`*?[") or target.startswith("-"):
        return False
    if not os.path.isabs(target) and (not (target == "." or target.startswith("./")) or ".." in target.split("/")):
        return False
    return inside(resolve_path(target, cwd))


def read_paths(name: str, args: list[str]) -> list[str]:
    """The paths a reading file command is given, as Claude Code reads its arguments (`.` when it reads the folder)."""
    if name == "ls":
        return _positional(args) or ["."]
    if name == "find":
        return _find_paths(args)
    if name in ("grep", "egrep", "fgrep", "rg"):
        valued = SEARCH_VALUED | {"-r"} if name == "rg" else SEARCH_VALUED
        files = _after_pattern(args, {"-e", "--regexp", "-f", "--file"}, valued)
        recursive = name == "rg" or any(a in ("-r", "-R", "--recursive") for a in args)
        return files or (["."] if recursive else [])
    if name in ("awk", "gawk", "mawk", "nawk"):
        return _after_pattern(args, {"-f", "--file", "-e", "--source"})
    if name in ("jq", "sed"):
        return _after_pattern(args, {"-e", "--expression", "-f", "--file", "--from-file"})
    if name == "tr":
        return []
    return _positional(args)


def _positional(args: Sequence[str]) -> list[str]:
    """Claude Code's plain reading: options up to the first operand or `--`, then everything."""
    found: list[str] = []
    operands = False
    for arg in args:
        if operands or found:
            found.append(arg)
        elif arg == "--":
            operands = True
        elif arg == "-" or not arg.startswith("-"):
            found.append(arg)
    return found


def _after_pattern(args: list[str], pattern_options: set[str], valued: frozenset[str] = frozenset()) -> list[str]:
    """The operands after the pattern (or program), which an option like `-e` may give instead."""
    operands: list[str] = []
    given = False
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg.startswith("-") and arg != "-":
            option = arg.split("=", 1)[0]
            given = given or option in pattern_options
            skip = "=" not in arg and (option in pattern_options or option in valued)
        else:
            operands.append(arg)
    return operands if given else operands[1:]


def _find_paths(args: list[str]) -> list[str]:
    found: list[str] = []
    for arg in args:
        if arg.startswith(("-", "(", "!")):
            break
        found.append(arg)
    return found or ["."]


def _absolute(path: str) -> bool:
    return os.path.isabs(os.path.expanduser(path)) if path.startswith("~") else os.path.isabs(path)


def _name(cmd: SimpleCommand) -> str:
    return os.path.basename(cmd.argv[0]) if cmd.argv else ""
