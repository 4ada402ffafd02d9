"""A rule the model is given: a stable key, the sentence it reads, and why it is there.

The system prompt (tui/agent/api/prompts.py) and the tool descriptions are built from these, so a test
can find each rule in a rendered request by its key, and docs/system-prompt.md can list them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    """One rule: `text` is what the model reads, `why` what it guards against (for the docs)."""

    key: str
    text: str
    why: str


def bullets(rules: Iterable[Rule]) -> str:
    """The rules as Markdown bullets, one per line."""
    return "\n".join(f"- {rule.text}" for rule in rules)
