"""A small shell lexer: words, operators, redirections, substitutions and heredocs.

`shlex` cannot tell `2>` from `2 >`, drops newlines and cannot find the end of a
`$(…)` that holds quotes or a heredoc, so permission checks use this lexer instead.
Anything it does not understand raises `Unparseable`, and the caller asks the user.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass, field

#: longest first, so `&&` wins over `&` and `<<<` over `<<`
OPERATORS = (
    "&>>",
    "<<<",
    "<<-",
    "&&",
    "||",
    ";;",
    ";&",
    "|&",
    ">>",
    ">|",
    "&>",
    ">&",
    "<&",
    "<<",
    "<>",
    "|",
    "&",
    ";",
    "(",
    ")",
    "<",
    ">",
)
OPERATOR_CHARS = set("|&;()<>")
#: `{a,b}` and `{1..3}` outside quotes
BRACE_EXPANSION = re.compile(r"\{[^{}]*(,|\.\.)[^{}]*\}")


class Unparseable(ValueError):
    """The command uses shell syntax the checker does not follow."""


@dataclass
class Token:
    """A word (quotes removed) or an operator; `quoted` is True when any part was quoted."""

    kind: str  # "word" | "op"
    value: str
    quoted: bool = False
    expands: bool = False  # holds $var, $(…) or `…` whose value is unknown here


@dataclass
class Script:
    """The tokens of one command line plus every command nested in substitutions."""

    tokens: list[Token] = field(default_factory=list)
    nested: list[Script] = field(default_factory=list)
    #: why the command's meaning is known only when it runs (expansions, `$'…'`, …), shared by nested scripts
    unsure: list[str] = field(default_factory=list)


class _Lexer:
    """Reads `text` from `pos`; one instance per nesting level shares the string."""

    def __init__(self, text: str, pos: int = 0, depth: int = 0) -> None:
        if depth > 8:
            raise Unparseable("substitutions are nested too deeply")
        self.s = text
        self.i = pos
        self.depth = depth
        self.script = Script()
        self.word: list[str] = []
        self.in_word = False
        self.quoted = False
        self.expands = False
        self.pending_heredocs: list[tuple[str, bool, bool]] = []  # (delimiter, quoted, strip tabs)
        self.expect_delimiter: bool | None = None  # None: no; else the strip-tabs flag

    # -- words --------------------------------------------------------------------------
    def _add(self, text: str) -> None:
        self.word.append(text)
        self.in_word = True

    def _end_word(self) -> None:
        if not self.in_word:
            return
        value = "".join(self.word)
        if self.expect_delimiter is not None:
            if not self.quoted:
                self.script.unsure.append("a heredoc whose body the shell expands")
            self.pending_heredocs.append((value, self.quoted, self.expect_delimiter))
            self.expect_delimiter = None
        elif not self.quoted and BRACE_EXPANSION.search(value):
            self.script.unsure.append("a brace expansion")
        self.script.tokens.append(Token("word", value, self.quoted, self.expands))
        self.word, self.in_word, self.quoted, self.expands = [], False, False, False

    def _peek(self, n: int = 0) -> str:
        j = self.i + n
        return self.s[j] if j < len(self.s) else ""

    # -- main loop ----------------------------------------------------------------------
    def run(self, closing: str | None = None) -> Script:
        """Lex until the end of text, or until the unmatched `closing` paren."""
        paren_depth = 0
        while self.i < len(self.s):
            c = self.s[self.i]
            if c == "\\":
                nxt = self._peek(1)
                if nxt == "\n":
                    self.i += 2
                    continue
                if not nxt:
                    raise Unparseable("the command ends with a backslash")
                if nxt in " \t":
                    self.script.unsure.append("a backslash-escaped space")
                self._add(nxt)
                self.quoted = True
                self.i += 2
            elif c in " \t\r":
                self._end_word()
                self.i += 1
            elif c == "\n":
                self._end_word()
                self.script.tokens.append(Token("op", ";"))
                self.i += 1
                self._read_heredoc_bodies()
            elif c == "#" and not self.in_word:
                while self.i < len(self.s) and self.s[self.i] != "\n":
                    self.i += 1
            elif c == "'":
                end = self.s.find("'", self.i + 1)
                if end < 0:
                    raise Unparseable("a single quote is not closed")
                self._add(self.s[self.i + 1 : end])
                self.quoted = True
                self.i = end + 1
            elif c == '"':
                self._double_quoted()
            elif c == "`":
                self._backtick()
            elif c == "$":
                self._dollar()
            elif c in "<>" and self._peek(1) == "(":
                start = self.i
                self.i += 2
                self._nested_paren()
                self._add(self.s[start : self.i])
                self.expands = True
                self.script.unsure.append("a process substitution")
            elif c in OPERATOR_CHARS:
                if c in "<>" and self.in_word and "".join(self.word).isdigit() and not self.quoted:
                    self.word, self.in_word = [], False  # `2>` is a file descriptor, not an argument
                self._end_word()
                op = next(o for o in OPERATORS if self.s.startswith(o, self.i))
                self.i += len(op)
                if op == "(":
                    paren_depth += 1
                    self.script.unsure.append("a subshell")
                elif op == ")":
                    if paren_depth == 0 and closing == ")":
                        return self._finish()
                    paren_depth -= 1
                    if paren_depth < 0:
                        raise Unparseable("a closing parenthesis has no opening one")
                if op in ("<<", "<<-"):
                    self.expect_delimiter = op == "<<-"
                self.script.tokens.append(Token("op", op))
            else:
                self._add(c)
                self.i += 1
        if closing:
            raise Unparseable("a substitution `$(` is not closed")
        if paren_depth:
            raise Unparseable("a parenthesis is not closed")
        return self._finish()

    def _finish(self) -> Script:
        self._end_word()
        if self.expect_delimiter is not None:
            raise Unparseable("a heredoc has no delimiter")
        if self.pending_heredocs:
            self._read_heredoc_bodies()
        return self.script

    # -- quoting and substitutions --------------------------------------------------------
    def _double_quoted(self) -> None:
        self.i += 1
        self.quoted = True
        self.in_word = True
        while True:
            if self.i >= len(self.s):
                raise Unparseable("a double quote is not closed")
            c = self.s[self.i]
            if c == '"':
                self.i += 1
                return
            if c == "\\" and self._peek(1) in '$`"\\\n':
                if self._peek(1) != "\n":
                    self._add(self._peek(1))
                self.i += 2
            elif c == "`":
                self._backtick()
            elif c == "$":
                self._dollar()
            else:
                self._add(c)
                self.i += 1

    def _nested_paren(self) -> None:
        """Lex a `$(`/`<(` body (self.i just past the paren) as its own script."""
        inner = _Lexer(self.s, self.i, self.depth + 1)
        inner.script.unsure = self.script.unsure
        self.script.nested.append(inner.run(closing=")"))
        self.i = inner.i

    def _backtick(self) -> None:
        j = self.i + 1
        body: list[str] = []
        while True:
            if j >= len(self.s):
                raise Unparseable("a backtick is not closed")
            c = self.s[j]
            if c == "\\" and j + 1 < len(self.s) and self.s[j + 1] in "`$\\":
                body.append(self.s[j + 1])
                j += 2
                continue
            if c == "`":
                break
            body.append(c)
            j += 1
        inner = _Lexer("".join(body), 0, self.depth + 1)
        inner.script.unsure = self.script.unsure
        self.script.nested.append(inner.run())
        self._add(self.s[self.i : j + 1])
        self.expands = True
        self.script.unsure.append("a command substitution")
        self.i = j + 1

    def _dollar(self) -> None:
        nxt = self._peek(1)
        start = self.i
        if nxt == "'":
            self._ansi_c_quoted()
            return
        if nxt == '"':
            self.i += 1  # `$"…"` is a plain double-quoted string for our purposes
            self._double_quoted()
            return
        if nxt == "(" and self._peek(2) == "(":
            self.i += 3
            self._arithmetic()
        elif nxt == "(":
            self.i += 2
            self._nested_paren()
        elif nxt == "{":
            end = self.s.find("}", self.i)
            if end < 0:
                raise Unparseable("a `${` is not closed")
            body = self.s[self.i + 2 : end]
            if any(ch in body for ch in "$`({"):
                raise Unparseable("nested expansions inside `${…}` are not followed")
            self.i = end + 1
        elif nxt and (nxt.isalnum() or nxt in "_@*#?$!-"):
            self.i += 2
            if nxt.isalpha() or nxt == "_":
                while self.i < len(self.s) and (self.s[self.i].isalnum() or self.s[self.i] == "_"):
                    self.i += 1
        else:
            self._add("$")
            self.i += 1
            return
        self._add(self.s[start : self.i])
        self.expands = True
        self.script.unsure.append(
            "a command substitution" if nxt == "(" and self.s[start + 2] != "(" else "an expansion"
        )

    def _ansi_c_quoted(self) -> None:
        """`$'…'`: backslash escapes decoded, so `$'\\x72m'` is seen as `rm`."""
        j = self.i + 2
        body: list[str] = []
        while True:
            if j >= len(self.s):
                raise Unparseable("a `$'` quote is not closed")
            if self.s[j] == "\\" and j + 1 < len(self.s):
                body.append(self.s[j : j + 2])
                j += 2
                continue
            if self.s[j] == "'":
                break
            body.append(self.s[j])
            j += 1
        try:
            text = codecs.decode("".join(body), "unicode_escape")
        except UnicodeDecodeError as exc:
            raise Unparseable("a `$'…'` string has an escape that is not followed") from exc
        self._add(text)
        self.quoted = True
        self.script.unsure.append("ANSI-C quoting (`$'…'`)")
        self.i = j + 1

    def _arithmetic(self) -> None:
        depth = 0
        while self.i < len(self.s):
            c = self.s[self.i]
            if c in "`" or (c == "$" and self._peek(1) == "("):
                raise Unparseable("command substitution inside `$((…))` is not followed")
            if c == "(":
                depth += 1
            elif c == ")":
                if depth == 0 and self._peek(1) == ")":
                    self.i += 2
                    return
                depth -= 1
            self.i += 1
        raise Unparseable("a `$((` is not closed")

    def _read_heredoc_bodies(self) -> None:
        """Skip the bodies of heredocs opened on the line just ended (they are data)."""
        for delimiter, quoted, strip_tabs in self.pending_heredocs:
            while True:
                if self.i >= len(self.s):
                    raise Unparseable(f"the heredoc `{delimiter}` is not terminated")
                end = self.s.find("\n", self.i)
                line = self.s[self.i : end if end >= 0 else len(self.s)]
                self.i = end + 1 if end >= 0 else len(self.s)
                if (line.lstrip("\t") if strip_tabs else line) == delimiter:
                    break
                if not quoted and ("$(" in line or "`" in line):
                    raise Unparseable("command substitution inside a heredoc is not followed")
        self.pending_heredocs = []


def lex(command: str) -> Script:
    """Tokens of `command` and of every command nested in it; raises Unparseable."""
    return _Lexer(command).run()
