"""docs/system-prompt.md lists every rule the model is given, with its cost in tokens, as the code holds them."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from tui.agent.prompt_rules import all_rules, rules_markdown

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "system-prompt.md"


def _script():
    spec = importlib.util.spec_from_file_location("prompt_doc", ROOT / "scripts" / "prompt_doc.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_page_tables_are_what_the_code_holds() -> None:
    script = _script()
    text = PAGE.read_text(encoding="utf-8")
    assert script.START in text and script.END in text
    assert script.current(text) == text, "docs/system-prompt.md is not current: run scripts/prompt_doc.py"


def test_every_rule_has_a_unique_key_a_reason_and_a_row() -> None:
    rules = all_rules()
    keys = [rule.key for _, rule in rules]
    assert len(keys) == len(set(keys))
    table = rules_markdown()
    for _, rule in rules:
        assert rule.why.strip() and rule.text.strip()
        assert f"| `{rule.key}` |" in table
