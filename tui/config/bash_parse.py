"""Split a Bash command into the simple commands it runs and the files it writes.

Every part of a compound command (`&&`, `||`, `;`, `|`, newlines, `( … )`, `$(…)`,
backticks, `bash -c "…"`) becomes one `SimpleCommand`; wrappers (`timeout`, `nice`,
`env`, `VAR=value` …) are stripped so rules match the command that really runs.
Output redirections and `tee` files become `WriteTarget`s, checked like file edits.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from tui.config.bash_lexer import Script, Token, Unparseable, lex

SEPARATORS = {"&&", "||", ";", ";;", ";&", "|", "|&", "&", "(", ")"}
WRITE_REDIRECTS = {">", ">>", ">|", "&>", "&>>", "<>", ">&"}
READ_REDIRECTS = {"<", "<<<", "<&", "<<", "<<-"}
SHELLS = {"bash", "sh", "zsh", "dash", "ksh"}
KEYWORDS = {"!", "{", "}", "then", "do", "else", "elif", "if", "while", "until", "fi", "done", "time"}
ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=")
HARMLESS_WRITES = {"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"}


@dataclass
class SimpleCommand:
    """One command that runs: `argv` after stripping; `forms` = every wrapped form, outermost first."""

    argv: list[str]
    forms: list[str] = field(default_factory=list)
    expands: bool = False  # the command name comes from an expansion ($X, $(…))

    @property
    def text(self) -> str:
        return " ".join(self.argv)


@dataclass
class WriteTarget:
    """A file the command writes; `paths` are its possible absolute locations (None: unknown)."""

    raw: str
    paths: list[Path] | None

    @property
    def harmless(self) -> bool:
        return self.raw in HARMLESS_WRITES or self.raw.startswith("/dev/fd/")


@dataclass
class ParsedBash:
    """What a Bash command runs and writes, or why it could not be followed."""

    commands: list[SimpleCommand] = field(default_factory=list)
    writes: list[WriteTarget] = field(default_factory=list)
    error: str | None = None


def parse_bash(command: str, cwd: Path) -> ParsedBash:
    """Split `command` (run in `cwd`) into simple commands and write targets."""
    result = ParsedBash()
    try:
        _Walker(result, cwd).script(lex(command), depth=0)
    except Unparseable as exc:
        return ParsedBash(error=str(exc))
    return result


def join_words(words: list[str]) -> str:
    """The text a rule specifier is matched against."""
    return " ".join(words)


class _Walker:
    """Walks scripts in order, following `cd` so relative write targets resolve right."""

    def __init__(self, result: ParsedBash, cwd: Path) -> None:
        self.result = result
        # every directory the shell might be in; None when a `cd` went somewhere unknown
        self.cwds: list[Path] | None = [cwd]

    def script(self, script: Script, depth: int) -> None:
        if depth > 5:
            raise Unparseable("`bash -c` is nested too deeply")
        for nested in script.nested:
            self.script(nested, depth + 1)
        current: list[Token] = []
        for token in [*script.tokens, Token("op", ";")]:
            if token.kind == "op" and token.value in SEPARATORS:
                if current:
                    self.simple(current, depth)
                current = []
            else:
                current.append(token)

    def simple(self, tokens: list[Token], depth: int) -> None:
        words: list[Token] = []
        i = 0
        while i < len(tokens):
            token = tokens[i]
            if token.kind == "op":
                target = tokens[i + 1] if i + 1 < len(tokens) else None
                if target is None or target.kind != "word":
                    raise Unparseable(f"the redirection `{token.value}` has no target")
                if token.value in WRITE_REDIRECTS:
                    if not (token.value == ">&" and (target.value.isdigit() or target.value == "-")):
                        self.write(target)
                elif token.value not in READ_REDIRECTS:
                    raise Unparseable(f"the operator `{token.value}` is not followed")
                i += 2
                continue
            words.append(token)
            i += 1
        if words and words[0].value in ("for", "select") and not words[0].quoted:
            return  # a loop header: its list words were walked as nested scripts already
        if words and words[0].value in ("case", "function") or (words and words[-1].value.endswith("()")):
            raise Unparseable(f"`{words[0].value}` blocks are not followed")
        self.command(words, depth)

    def command(self, words: list[Token], depth: int) -> None:
        forms: list[str] = [join_words([w.value for w in words])] if words else []
        words = list(words)
        while words:
            stripped = _strip_wrapper(words)
            if stripped is None:
                break
            words = stripped
            if words:
                forms.append(join_words([w.value for w in words]))
        if not words:
            return
        name = words[0].value
        if name in SHELLS:
            body = _shell_c_body(words)
            if body is not None:
                self._sub_command(body, depth, forms)
                return
        if name == "eval":
            self._sub_command(" ".join(w.value for w in words[1:]), depth, forms)
            return
        argv = [w.value for w in words]
        if "/" in name and not words[0].expands:
            # `/bin/rm x` must meet the deny rules written for `rm`
            forms.append(join_words([os.path.basename(name), *argv[1:]]))
        self.result.commands.append(SimpleCommand(argv, forms, expands=words[0].expands))
        if name in ("cd", "pushd"):
            self._cd(words[1:])
        elif name == "tee":
            for w in words[1:]:
                if not w.value.startswith("-"):
                    self.write(w)

    def _sub_command(self, body: str, depth: int, forms: list[str]) -> None:
        """Walk `bash -c BODY` / `eval BODY`; deny/ask rules also see the outer forms."""
        start = len(self.result.commands)
        self.script(lex(body), depth + 1)
        for cmd in self.result.commands[start:]:
            cmd.forms = forms + [f for f in cmd.forms if f not in forms]

    def _cd(self, args: list[Token]) -> None:
        args = [a for a in args if a.value not in ("-L", "-P", "--")]
        if self.cwds is None:
            return
        if not args:
            target: Path | None = Path.home()
        elif args[0].expands or args[0].value == "-" or args[0].value.startswith("~") and not args[0].value.startswith("~/"):
            target = None
        else:
            target = None if args[0].value == "" else _resolve(args[0].value, self.cwds[0])
        if target is None:
            self.cwds = None
        else:
            # keep the old directories too: a `cd` inside `( … )` or a pipe does not last
            self.cwds = [*self.cwds, target] if target not in self.cwds else self.cwds

    def write(self, target: Token) -> None:
        if target.expands or self.cwds is None:
            self.result.writes.append(WriteTarget(target.value, None))
            return
        raw = target.value
        paths = [_resolve(raw, cwd) for cwd in self.cwds]
        self.result.writes.append(WriteTarget(raw, list(dict.fromkeys(paths))))


def _resolve(raw: str, cwd: Path) -> Path:
    path = Path(os.path.expanduser(raw)) if raw.startswith("~/") or raw == "~" else Path(raw)
    if not path.is_absolute():
        path = cwd / path
    return Path(os.path.normpath(path))


def _shell_c_body(words: list[Token]) -> str | None:
    """The script of `bash [-opts] -c BODY`, or None when this is not a `-c` call."""
    for i, w in enumerate(words[1:], start=1):
        if not w.value.startswith("-"):
            return None
        if w.value.startswith("-") and not w.value.startswith("--") and "c" in w.value[1:]:
            if i + 1 >= len(words):
                raise Unparseable("`-c` has no command")
            return words[i + 1].value
    return None


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


def _strip_wrapper(words: list[Token]) -> list[Token] | None:
    """`words` without one leading wrapper, keyword or assignment; None when there is none."""
    first = words[0]
    name = first.value
    if not first.quoted and ASSIGNMENT.match(name):
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
        if len(words) > 1 and words[1].value in ("-v", "-V"):
            return None  # a lookup, like `which`
        return words[_skip_options(words, set()):]
    if name == "timeout":
        i = _skip_options(words, {"-s", "-k", "--signal", "--kill-after"})
        return words[i + 1 :]  # the duration comes first
    if name == "nice":
        i = 1
        while i < len(words) and words[i].value.startswith("-"):
            i += 2 if words[i].value in ("-n", "--adjustment") else 1
        return words[i:]
    if name == "stdbuf":
        return words[_skip_options(words, {"-i", "-o", "-e"}):]
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
