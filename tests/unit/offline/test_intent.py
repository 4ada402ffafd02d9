"""Which prompts ask for a change: only those lead the offline model to an edit."""

from __future__ import annotations

import pytest

from tui.agent.offline.intent import Kind, classify

CASES = [
    ("find the TODOs and fix one", Kind.CHANGE, ""),
    ("Look at a.py and b.py, find the TODOs, and fix the one in a.py.", Kind.CHANGE, ""),
    ("please update the README", Kind.CHANGE, ""),
    ("can you add a test for calc", Kind.CHANGE, ""),
    ("find the TODOs", Kind.TODOS, ""),
    ("list the TODOs", Kind.TODOS, ""),
    ("find the TODOs but don't fix them", Kind.TODOS, ""),
    ("list the python files", Kind.LIST, ""),
    ("show me the markdown files", Kind.LIST, ""),
    ("where is add defined?", Kind.LOCATE, "add"),
    ("where is `run_turn` defined", Kind.LOCATE, "run_turn"),
    ("find the definition of split_rules", Kind.LOCATE, "split_rules"),
    ("summarise this project", Kind.EXPLAIN, ""),
    ("explain tui/cli/main.py", Kind.EXPLAIN, ""),
    ("explain the update function", Kind.EXPLAIN, ""),
    ("read README.md", Kind.EXPLAIN, ""),
    ("look at main.py", Kind.LOOK, ""),
]


@pytest.mark.parametrize(("prompt", "kind", "name"), CASES)
def test_intent(prompt: str, kind: Kind, name: str) -> None:
    intent = classify(prompt)
    assert (intent.kind, intent.name) == (kind, name)


def test_a_listing_knows_the_suffixes() -> None:
    assert classify("list the python files").suffixes == (".py", ".pyi")
    assert classify("list all *.md files").suffixes == (".md",)
