"""The offline model delegates: a prompt that asks for subagents gets parallel Agent calls.

"explore this project with subagents" starts two read-only Explore agents (the TODO markers, the
project's files), each of them a real loop the offline model answers in turn; their reports come
back as the Agent results, and the answer quotes them.
"""

from __future__ import annotations

import re

from tui.agent.offline.calls import Blocks, text_block, tool_call
from tui.agent.offline.conversation import TurnState

_ASKS_FOR_AGENTS = re.compile(r"\b(sub-?agents?|agents|delegate|in parallel agents?)\b", re.IGNORECASE)
#: the tasks handed out: (description, prompt); each prompt is one the offline model answers by reading
TASKS = (
    ("Find TODO markers", "Find the TODO and FIXME markers in this project and report where they are."),
    ("Summarize the project", "Summarize this project: what it is and how its files are laid out."),
)
REPORT_LINES = 12


def wants_agents(prompt: str, tools: set[str]) -> bool:
    """True when the Agent tool is offered and the prompt asks for subagents."""
    return "Agent" in tools and _ASKS_FOR_AGENTS.search(prompt) is not None


def delegate(turn: TurnState) -> tuple[Blocks, str]:
    """First the parallel Agent calls, then an answer quoting each subagent's report."""
    agents = [call for call in turn.calls if call.name == "Agent"]
    if not agents:
        calls = [tool_call("Agent", {"description": d, "prompt": p, "subagent_type": "Explore"}) for d, p in TASKS]
        return [
            text_block(f"I'll hand this to {len(calls)} Explore subagents working in parallel."),
            *calls,
        ], "tool_use"
    parts = ["Here is what the subagents found."]
    for call in agents:
        title = call.input.get("description", "subagent")
        if call.result_text is None:
            report = "(no report)"
        else:
            body = call.result_text.split("\nagentId: ", 1)[0]  # the usage trailer is not part of the report
            lines = [line for line in body.splitlines() if not line.startswith("_Answered by the offline")]
            lines = [re.sub(r"^#+\s*(.+)$", r"**\1**", line) for line in lines[:REPORT_LINES]]  # under our heading
            report = "\n".join(lines).strip() or "(an empty report)"
        state = " (failed)" if call.is_error else ""
        parts.append(f"### {title}{state}\n\n{report}")
    return [text_block("\n\n".join(parts))], "end_turn"
