"""What the user asked the offline model for: a change, a search, a listing, a definition or a summary.

Only a prompt that asks to change something leads to an edit; every other kind of request
is answered from reads and searches alone, whatever the permission mode allows.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum


class Kind(Enum):
    """The kinds of request the offline model tells apart."""

    CHANGE = "change"  # fix / edit / update ...: the full demo with one edit
    TODOS = "todos"  # find or list TODO/FIXME markers
    LIST = "list"  # list files (of a language)
    LOCATE = "locate"  # where is NAME defined
    EXPLAIN = "explain"  # summarise or explain the project or a file
    LOOK = "look"  # any other project question: look around, change nothing


@dataclass(frozen=True)
class Intent:
    """A request kind with what it is about (a name to locate, a file suffix to list)."""

    kind: Kind
    name: str = ""
    suffixes: tuple[str, ...] = ()


_CHANGE_VERBS = (
    "fix fixes change edit modify update refactor rename replace resolve implement add remove delete "
    "rewrite write patch correct convert apply tidy clean"
).split()
# a change verb counts where a request starts: "fix ...", "... and fix ...", "please update ..."
_CHANGE_REQUEST = re.compile(
    r"(?:^|[,;.!?:]\s*|\b(?:and|then|please|to|you|also|now|just|lets|let's|i|we|should|must|can|could"
    r"|would|will)\s+)(?:please\s+|also\s+|just\s+|go\s+(?:and\s+)?)?(?:" + "|".join(_CHANGE_VERBS) + r")\b",
    re.IGNORECASE,
)
_CODE_OR_PATH = re.compile(r"`[^`]*`|[\w./-]*\w\.\w{1,8}\b|[\w.-]+/[\w./-]+")
_NEGATED_CHANGE = re.compile(
    r"\b(?:don'?t|do not|without|never|no)\s+(?:\w+\s+){0,2}?"
    r"(?:fix|chang|edit|modif|touch|writ|updat|alter)",
    re.IGNORECASE,
)
_LIST_WORDS = frozenset({"list", "ls", "enumerate"})
_FIND_WORDS = frozenset({"find", "search", "grep", "show", "locate", "look", "where", "count", "which", "many"})
_EXPLAIN_WORDS = frozenset(
    "summarise summarize summary overview explain describe explanation about understand read open cat".split()
)
_TODO_WORD = re.compile(r"\b(?:todo|todos|fixme|fixmes)\b", re.IGNORECASE)
_DEFINED = re.compile(
    r"\bwhere(?:\s+is|'s|\s+are)?\s+`?([A-Za-z_][\w.]*)`?\s*(?:\(\))?\s*(?:defined|declared|implemented)?"
    r"|\b(?:definition|declaration)\s+of\s+`?([A-Za-z_][\w.]*)`?"
    r"|\b(?:find|locate)\s+(?:the\s+)?(?:function|class|method|def|symbol)\s+`?([A-Za-z_][\w.]*)`?",
    re.IGNORECASE,
)
_WHERE_FILLER = frozenset({"the", "a", "an", "it", "this", "that", "my", "our", "all"})
LANGUAGE_SUFFIXES: dict[str, tuple[str, ...]] = {
    "python": (".py", ".pyi"),
    "py": (".py", ".pyi"),
    "javascript": (".js", ".mjs", ".cjs", ".jsx"),
    "js": (".js", ".mjs", ".cjs", ".jsx"),
    "typescript": (".ts", ".tsx"),
    "ts": (".ts", ".tsx"),
    "rust": (".rs",),
    "go": (".go",),
    "golang": (".go",),
    "java": (".java",),
    "kotlin": (".kt",),
    "ruby": (".rb",),
    "php": (".php",),
    "c": (".c", ".h"),
    "cpp": (".cc", ".cpp", ".hpp", ".h"),
    "shell": (".sh",),
    "bash": (".sh",),
    "markdown": (".md",),
    "md": (".md",),
    "json": (".json",),
    "yaml": (".yml", ".yaml"),
    "toml": (".toml",),
    "html": (".html", ".htm"),
    "css": (".css",),
    "test": (),
    "tests": (),
}
_SUFFIX_IN_PROMPT = re.compile(r"(?:\*|\b)(\.[A-Za-z0-9]{1,8})\b")


def _words(prompt: str) -> set[str]:
    return set(re.findall(r"[a-z']+", prompt.lower()))


def asks_to_change(prompt: str) -> bool:
    """True when the prompt asks for a change (and does not say not to change anything)."""
    if _NEGATED_CHANGE.search(prompt):
        return False
    return _CHANGE_REQUEST.search(_CODE_OR_PATH.sub(" ", prompt).strip()) is not None


def _list_suffixes(prompt: str) -> tuple[str, ...]:
    """File suffixes a listing asks for: `python files`, `*.py`, `.md files`; () for all files."""
    suffixes: list[str] = []
    for word in re.findall(r"[a-z+]+", prompt.lower()):
        suffixes += LANGUAGE_SUFFIXES.get(word, ())
    suffixes += [match.lower() for match in _SUFFIX_IN_PROMPT.findall(prompt)]
    return tuple(dict.fromkeys(suffixes))


def _defined_name(prompt: str) -> str:
    """The identifier a `where is X defined` question asks about, or ''."""
    for match in _DEFINED.finditer(prompt):
        name = next((group for group in match.groups() if group), "")
        if name and name.lower() not in _WHERE_FILLER and not _TODO_WORD.fullmatch(name):
            return name
    return ""


def classify(prompt: str) -> Intent:
    """The intent of a prompt; a change only when the words ask for one."""
    words = _words(prompt)
    name = _defined_name(prompt)
    unnamed = re.sub(rf"\b{re.escape(name)}\b", " ", prompt) if name else prompt
    if asks_to_change(unnamed):
        return Intent(Kind.CHANGE)
    if _TODO_WORD.search(prompt):
        return Intent(Kind.TODOS)
    if name:
        return Intent(Kind.LOCATE, name=name)
    if words & _LIST_WORDS or ("files" in words and words & _FIND_WORDS):
        return Intent(Kind.LIST, suffixes=_list_suffixes(prompt))
    if words & _EXPLAIN_WORDS or re.search(r"\bwhat\s+(?:is|does)\b", prompt, re.IGNORECASE):
        return Intent(Kind.EXPLAIN)
    return Intent(Kind.LOOK)
