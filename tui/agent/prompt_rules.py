"""Every rule the model is given, where it is, why, and what it costs: docs/system-prompt.md's tables.

`python scripts/prompt_doc.py` writes the tables into the page; tests/unit/test_prompt_doc.py checks that
the page is current, and tests/integration/test_first_requests.py finds each rule in real first requests.
"""

from __future__ import annotations

from typing import Any

from tui.agent.api.prompts import CARE_RULES, IDENTITY, IDENTITY_AND_RULES, SUBAGENT_RULE_KEYS, TONE, WORK_RULES
from tui.agent.context.context import estimate_tokens
from tui.tools.bash import BASH_RULES
from tui.tools.registry import default_tools
from tui.tools.rules import Rule

from .agent_tool_text import AGENT_RULES, DESCRIPTION, INPUT_SCHEMA

#: where each tool-description rule lives
TOOL_RULES: dict[str, tuple[Rule, ...]] = {"Bash": BASH_RULES, "Agent": AGENT_RULES}


def all_rules() -> list[tuple[str, Rule]]:
    """(where, rule) for every rule: "system" for the system prompt, else the tool's name."""
    found = [("system", rule) for rule in (*WORK_RULES, *CARE_RULES)]
    for tool, rules in TOOL_RULES.items():
        found += [(tool, rule) for rule in rules]
    return found


def agent_definition() -> dict[str, Any]:
    """The Agent tool's entry with the built-in agent types only (a project's own types add their lines)."""
    from tui.config.agent_files import BUILT_INS

    kinds = "\n".join(f"- {d.name}: {d.description}" for d in BUILT_INS)
    return {"name": "Agent", "description": f"{DESCRIPTION}\n{kinds}", "input_schema": INPUT_SCHEMA}


def tool_costs() -> list[tuple[str, int]]:
    """(tool, tokens of its whole tools[] entry) for the built-in tools and Agent."""
    entries = [tool.definition() for tool in default_tools()] + [agent_definition()]
    return [(str(entry["name"]), estimate_tokens(entry)) for entry in entries]


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def rules_markdown() -> str:
    """The page's generated part: the rules table and the cost of each part of the stable prompt."""
    lines = [
        "| key | where | the rule, as the model reads it | why | tokens |",
        "|---|---|---|---|---|",
    ]
    for where, rule in all_rules():
        place = "system prompt" if where == "system" else f"{where} description"
        if where == "system" and rule.key in SUBAGENT_RULE_KEYS:
            place += " (and subagents)"
        lines.append(
            f"| `{rule.key}` | {place} | {_cell(rule.text)} | {_cell(rule.why)} | {estimate_tokens(rule.text)} |"
        )
    lines += [
        "",
        "| part | tokens |",
        "|---|---|",
        f"| the system prompt's stable block (identity, rules, tone) | {estimate_tokens(IDENTITY_AND_RULES)} |",
        f"| of which the identity and tone lines | {estimate_tokens(IDENTITY) + estimate_tokens(TONE)} |",
    ]
    lines += [f"| `{name}` tool: name, description and input schema | {tokens} |" for name, tokens in tool_costs()]
    return "\n".join(lines)
