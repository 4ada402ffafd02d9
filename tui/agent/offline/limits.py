"""What the offline demo cannot do, said plainly, and the only edits it proposes: ones that keep the file parsing.

The demo changes one thing: a TODO/FIXME comment becomes a reviewed note. A request for any other change
(write fib.py, add a test, update the README) gets an answer saying so, instead of a hunt for TODOs. An
edit is proposed only for a marker in a comment, and only when the file still parses afterwards with its
language's parser (Python, JSON, TOML) where the file parsed before.
"""

from __future__ import annotations

import ast
import io
import json
import re
import tokenize
import tomllib
from pathlib import Path

from tui.agent.offline.conversation import GrepHit
from tui.agent.offline.facts import TurnFacts, edit_strings, editable_hits, in_comment
from tui.agent.offline.project import normalize
from tui.text.wording import shorten

#: words a change request may hold and still be one the demo serves: no named thing to make or change
_GENERIC_WORDS = frozenset(
    "a an the some one it its this that these those all any every code project repo repository codebase "
    "what whatever you can could in on of for to up please and then now just also go let lets let's i we "
    "should must would will me us my our here there something anything things thing stuff bug bugs issue "
    "issues problem problems error errors demo try an edit change changes fix fixes modify update refactor "
    "tidy clean correct resolve apply patch make do small little quick simple".split()
)
_WORD = re.compile(r"[a-z']+")
_ABOUT_TODOS = re.compile(r"\b(?:todo|fixme)s?\b", re.IGNORECASE)

CANNOT = (
    "I'm the **offline demo model**, a small script built into agent-tui, not Claude, so I can't do that: "
    "I don't write or change code on request."
)
CAN = """What I can do here, on this project's real files:

- list files (`list the python files`), find TODO/FIXME markers (`find the TODOs`) and find where a name is \
defined (`where is main defined`)
- read and summarise a file or the project (`read README.md`, `summarize this project`)
- show an edit you approve or deny: `find the TODOs and fix one` turns one TODO comment into a reviewed note

For real work, set `ANTHROPIC_API_KEY` (or run `/login`) and ask again: a real model does the rest."""


def serves_change(prompt: str) -> bool:
    """True when the demo's one kind of change fits the request: it is about TODOs, or names nothing to make."""
    if _ABOUT_TODOS.search(prompt):
        return True
    return set(_WORD.findall(prompt.lower())) <= _GENERIC_WORDS


def cannot_reply(prompt: str) -> str:
    """The honest answer to a change the demo cannot make."""
    return f"You asked: “{shorten(' '.join(prompt.split()), 120)}”.\n\n{CANNOT}\n\n{CAN}"


def parses(path: str, text: str) -> bool:
    """Whether `text` parses as the language of `path` (Python, JSON, TOML); True for any other kind of file."""
    suffix = Path(path).suffix.lower()
    try:
        if suffix in (".py", ".pyi"):
            ast.parse(text)
        elif suffix == ".json":
            json.loads(text)
        elif suffix == ".toml":
            tomllib.loads(text)
    except (SyntaxError, ValueError):
        return False
    return True


def _python_comment_lines(text: str) -> set[int] | None:
    """The lines of Python source that hold a comment token; None when it does not tokenize."""
    try:
        tokens = tokenize.generate_tokens(io.StringIO(text).readline)
        return {token.start[0] for token in tokens if token.type == tokenize.COMMENT}
    except (tokenize.TokenError, SyntaxError):
        return None


def keeps_parsing(hit: GrepHit, project_dir: Path) -> bool:
    """Whether rewriting `hit`'s TODO line leaves its file parsing (and, for Python, the marker is in a comment)."""
    path = normalize(hit.path, project_dir)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    lines = dict(enumerate(text.split("\n"), start=1))
    old, new, number = edit_strings(hit, lines)
    if text.count(old) != 1:
        return False
    if Path(path).suffix.lower() in (".py", ".pyi"):
        comments = _python_comment_lines(text)
        if comments is not None and number not in comments:
            return False  # a TODO in a string or a name: changing it changes the program
    return not parses(path, text) or parses(path, text.replace(old, new, 1))


def safe_hits(facts: TurnFacts, project_dir: Path) -> list[GrepHit]:
    """The TODO hits the demo may edit: markers in comments whose rewrite keeps the file parsing."""
    return [hit for hit in editable_hits(facts, project_dir) if in_comment(hit) and keeps_parsing(hit, project_dir)]
