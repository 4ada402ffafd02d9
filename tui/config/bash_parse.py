"""Split a Bash command into the simple commands it runs and the files it writes.

Every part of a compound command (`&&`, `||`, `;`, `|`, newlines, `( … )`, `$(…)`,
backticks, `bash -c "…"`) becomes one `SimpleCommand`. Deny rules see every wrapped form;
allow rules and the read-only set see only what is sure (bash_wrappers.py). What the parser
cannot be sure of (expansions, `$'…'`, `eval`, `bash -c` …) is named in `ParsedBash.unsure`.
Output redirections and `tee` files become `WriteTarget`s, checked like file edits.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from tui.config.bash_lexer import Script, Token, Unparseable, lex
from tui.config.bash_wrappers import (
    allow_words,
    git_without_globals,
    is_assignment,
    is_safe_assignment,
    strip_wrapper,
)

SEPARATORS = {"&&", "||", ";", ";;", ";&", "|", "|&", "&", "(", ")"}
WRITE_REDIRECTS = {">", ">>", ">|", "&>", "&>>", "<>", ">&"}
READ_REDIRECTS = {"<", "<<<", "<&", "<<", "<<-"}
#: the input redirections that name a file (`<<` and `<<<` bring text)
FILE_READ_REDIRECTS = {"<", "<&"}
SHELLS = {"bash", "sh", "zsh", "dash", "ksh"}
#: commands that run code the parser does not see as a command of its own
EVALUATORS = {"eval", "exec", "source", ".", "trap", "sudo", "doas", "su", "setsid", "watch", "script"}
#: `a/../b`: a path that climbs out of a folder it named
TRAVERSAL = re.compile(r"(^|/)(?!\.\.(/|$))[^/]+/\.\.(/|$)")
HARMLESS_WRITES = {"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"}


@dataclass
class SimpleCommand:
    """One command that runs: `argv` after stripping; `forms` = every wrapped form, outermost first.

    `allow_text` is the form allow rules match; `plain` is False when anything but a harmless
    assignment or `command`/`builtin` was stripped to get `argv` (then it is not read-only).
    """

    argv: list[str]
    forms: list[str] = field(default_factory=list)
    expands: bool = False  # the command name comes from an expansion ($X, $(…))
    allow_text: str | None = None
    plain: bool = True
    cwds: list[Path] | None = None  # where it may run (None: unknown)
    #: the files its input redirections (`< FILE`) name, as written
    reads: list[str] = field(default_factory=list)
    #: it had a redirection of any kind (`> f`, `< f`, `2>&1` …)
    redirected: bool = False

    @property
    def text(self) -> str:
        return self.allow_text if self.allow_text is not None else " ".join(self.argv)


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
    #: why no rule or read-only judgement can be sure what runs (it still meets deny rules)
    unsure: list[str] = field(default_factory=list)
    #: the operators between the commands of the top-level line, in order (`&&`, `;`, `|` …; a newline is `;`)
    operators: list[str] = field(default_factory=list)


def parse_bash(command: str, cwd: Path) -> ParsedBash:
    """Split `command` (run in `cwd`) into simple commands and write targets."""
    result = ParsedBash()
    try:
        script = lex(command)
        _Walker(result, cwd).script(script, depth=0)
        result.unsure[:0] = script.unsure
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
        for index, token in enumerate([*script.tokens, Token("op", ";")]):
            if token.kind == "op" and token.value in SEPARATORS:
                if current:
                    self.simple(current, depth)
                if depth == 0 and index < len(script.tokens):
                    self.result.operators.append(token.value)
                current = []
            else:
                current.append(token)

    def simple(self, tokens: list[Token], depth: int) -> None:
        words: list[Token] = []
        reads: list[str] = []
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
                elif token.value in FILE_READ_REDIRECTS and not (target.value.isdigit() or target.value == "-"):
                    reads.append(target.value)
                i += 2
                continue
            words.append(token)
            i += 1
        if words and words[0].value in ("for", "select") and not words[0].quoted:
            return  # a loop header: its list words were walked as nested scripts already
        if (words and words[0].value in ("case", "function")) or (words and words[-1].value.endswith("()")):
            raise Unparseable(f"`{words[0].value}` blocks are not followed")
        self.command(words, depth, reads, redirected=len(words) < len(tokens))

    def command(self, words: list[Token], depth: int, reads: list[str], redirected: bool) -> None:
        forms: list[str] = [join_words([w.value for w in words])] if words else []
        sure, plain = allow_words(list(words))
        if any(w.value.startswith(("IFS=", "IFS+=")) for w in words if is_assignment(w)):
            self.result.unsure.append("an `IFS` assignment")
        if any(TRAVERSAL.search(w.value) for w in words):
            self.result.unsure.append("a path with `..` after a folder")
        if words and words[0].value == "{" and not words[0].quoted:
            self.result.unsure.append("a command group")
        words = list(words)
        while words:
            first = words[0].value
            if (first in EVALUATORS or (first == "env" and len(words) > 1)) and not words[0].quoted:
                self.result.unsure.append(f"`{first}` runs code of its own")
            stripped = strip_wrapper(words)
            if stripped is None:
                break
            words = stripped
            if words:
                forms.append(join_words([w.value for w in words]))
        if not words:
            if sure and all(is_assignment(w) for w in sure) and not all(is_safe_assignment(w) for w in sure):
                # `PATH=./bin; ls`: the assignment lasts for what follows
                text = join_words([w.value for w in sure])
                self.result.commands.append(SimpleCommand([], forms, allow_text=text, plain=False))
            return
        name = words[0].value
        if name in SHELLS:
            body = _shell_c_body(words)
            if body is not None:
                self.result.unsure.append(f"`{name} -c` runs a script of its own")
                self._sub_command(body, depth, forms)
                return
        if name == "eval":
            self._sub_command(" ".join(w.value for w in words[1:]), depth, forms)
            return
        argv = [w.value for w in words]
        if "/" in name and not words[0].expands:
            # `/bin/rm x` must meet the deny rules written for `rm`
            forms.append(join_words([os.path.basename(name), *argv[1:]]))
        if name == "git" and (bare := git_without_globals(argv)):
            forms.append(join_words(bare))
        allow_text = join_words([w.value for w in sure]) if sure else None
        plain = plain and allow_text == join_words(argv)
        cwds = list(self.cwds) if self.cwds is not None else None
        self.result.commands.append(
            SimpleCommand(
                argv,
                forms,
                expands=words[0].expands,
                allow_text=allow_text,
                plain=plain,
                cwds=cwds,
                reads=reads,
                redirected=redirected,
            )
        )
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
        elif (
            args[0].expands
            or args[0].value == "-"
            or (args[0].value.startswith("~") and not args[0].value.startswith("~/"))
        ):
            target = None
        else:
            target = None if args[0].value == "" else resolve_path(args[0].value, self.cwds[0])
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
        paths = [resolve_path(raw, cwd) for cwd in self.cwds]
        self.result.writes.append(WriteTarget(raw, list(dict.fromkeys(paths))))


def resolve_path(raw: str, cwd: Path) -> Path:
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
