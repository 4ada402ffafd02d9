"""What runs behind wrappers and assignments: every form for deny rules, one sure form for allow rules.

Deny and ask rules see the command with every wrapper (`env`, `xargs`, `timeout`, `command`, git's
global options …) and every leading `NAME=value` stripped, so `command git push` is still `git push`.
Allow rules and the read-only set see only what Claude Code strips too: a short list of harmless
variables (locale, `TZ`, `NO_COLOR`, `TERM` …) and the wrappers that change nothing about what
runs. `PATH=./bin ls` is therefore not `ls` for an allow rule, and not read-only.
"""

from __future__ import annotations

import re

from tui.config.bash_lexer import Token, Unparseable

ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=")
KEYWORDS = {"!", "{", "}", "then", "do", "else", "elif", "if", "while", "until", "fi", "done", "time"}
#: variables that change no program's choice of code (Claude Code 2.1's own list, less its API key)
SAFE_ENV = frozenset(
    """
    GOEXPERIMENT GOOS GOARCH CGO_ENABLED GO111MODULE RUST_BACKTRACE RUST_LOG NODE_ENV PYTHONUNBUFFERED
    PYTHONDONTWRITEBYTECODE PYTEST_DISABLE_PLUGIN_AUTOLOAD PYTEST_DEBUG LANG LANGUAGE LC_ALL LC_CTYPE LC_TIME
    CHARSET TERM COLORTERM NO_COLOR FORCE_COLOR TZ LS_COLORS LSCOLORS GREP_COLOR GREP_COLORS GCC_COLORS
    TIME_STYLE BLOCK_SIZE BLOCKSIZE COLUMNS LINES CLICOLOR CLICOLOR_FORCE CI DEBIAN_FRONTEND GIT_TERMINAL_PROMPT
    """.split()
)
SAFE_VALUE = re.compile(r"[A-Za-z0-9_./:+-]*")
#: git options before the subcommand, with a separate value
GIT_GLOBAL_WITH_VALUE = {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--exec-path"}
DURATION = re.compile(r"\d+(\.\d+)?[smhd]?")


def is_assignment(token: Token) -> bool:
    return ASSIGNMENT.match(token.value) is not None and not token.value.startswith(("'", '"'))


def is_safe_assignment(token: Token) -> bool:
    """`LANG=C`: a harmless variable with a plain value."""
    name, _, value = token.value.partition("=")
    return is_assignment(token) and not token.expands and name in SAFE_ENV and SAFE_VALUE.fullmatch(value) is not None


def allow_words(words: list[Token]) -> tuple[list[Token], bool]:
    """The form allow rules match, and whether it is the plain command (fit for the read-only set).

    Only harmless assignments and the wrappers that run their command unchanged are stripped;
    `timeout`, `nice`, `nohup`, `time` and `stdbuf` are stripped for allow rules but keep the
    command out of the read-only set (as Claude Code does).
    """
    plain = True
    while words:
        first, name = words[0], words[0].value
        if is_safe_assignment(first):
            words = words[1:]
        elif first.quoted or first.expands:
            break
        elif name in KEYWORDS and name != "time" and len(words) > 1:
            words = words[1:]
        elif name in ("command", "builtin") and len(words) > 1 and not words[1].value.startswith("-"):
            words = words[1:]
        elif name == "command" and len(words) > 2 and words[1].value == "-p":
            words = words[2:]
        elif name in ("time", "nohup", "noglob") and len(words) > 1:
            words, plain = words[1:], False
        elif name == "nice" and len(words) > 1:
            skip = 3 if words[1].value == "-n" else 2 if re.fullmatch(r"-\d+", words[1].value) else 1
            words, plain = words[skip:], False
        elif name == "stdbuf" and len(words) > 1 and re.fullmatch(r"-[ioe][LN0-9]+", words[1].value):
            i = 1
            while i < len(words) and re.fullmatch(r"-[ioe][LN0-9]+", words[i].value):
                i += 1
            words, plain = words[i:], False
        elif name == "timeout":
            i = _skip_options(words, {"-s", "-k", "--signal", "--kill-after"})
            if i >= len(words) or not DURATION.fullmatch(words[i].value):
                break
            words, plain = words[i + 1 :], False
        else:
            break
    return words, plain


def git_without_globals(argv: list[str]) -> list[str] | None:
    """`git -C x --no-pager push` as `git push`, for deny and ask rules; None without global options."""
    i = 1
    while i < len(argv) and argv[i].startswith("-"):
        i += 2 if argv[i] in GIT_GLOBAL_WITH_VALUE else 1
    return ["git", *argv[i:]] if i > 1 else None


def _skip_options(words: list[Token], with_value: set[str], glued_ok: bool = True) -> int:
    """Index of the first word after the leading options of a wrapper."""
    i = 1
    while i < len(words):
        v = words[i].value
        if v == "--":
            return i + 1
        if not v.startswith("-") or v == "-":
            return i
        if v in with_value:
            i += 2
        elif "=" in v or glued_ok:
            i += 1
        else:
            return i
    return i


def strip_wrapper(words: list[Token]) -> list[Token] | None:
    """`words` without one leading wrapper, keyword or assignment; None when there is none."""
    first = words[0]
    name = first.value
    if is_assignment(first):
        return words[1:]
    if first.expands:
        return None
    if name in KEYWORDS and not first.quoted:
        if name == "time" and len(words) > 1 and words[1].value == "-p":
            return words[2:]
        return words[1:]
    if name in ("nohup", "builtin", "noglob", "exec"):
        return words[1:]
    if name == "command":
        if len(words) > 1 and words[1].value.startswith("-") and set(words[1].value[1:]) & {"v", "V"}:
            return None  # a lookup, like `which`
        return words[_skip_options(words, set()) :]
    if name == "timeout":
        i = _skip_options(words, {"-s", "-k", "--signal", "--kill-after"})
        return words[i + 1 :]  # the duration comes first
    if name == "nice":
        i = 1
        while i < len(words) and words[i].value.startswith("-"):
            i += 2 if words[i].value in ("-n", "--adjustment") else 1
        return words[i:]
    if name == "stdbuf":
        return words[_skip_options(words, {"-i", "-o", "-e"}) :]
    if name == "env":
        i = _skip_options(words, {"-u", "--unset", "-C", "--chdir", "-S", "--split-string"})
        if any(w.value in ("-C", "--chdir", "-S", "--split-string") for w in words[1:i]):
            raise Unparseable("`env -C`/`env -S` is not followed")
        while i < len(words) and ASSIGNMENT.match(words[i].value):
            i += 1
        return words[i:] if i < len(words) else None
    if name == "xargs":
        i = _skip_options(words, {"-I", "-n", "-P", "-L", "-d", "-E", "-s", "-a", "--max-args", "--max-procs"})
        return words[i:] or [Token("word", "echo")]
    return None
