"""What the model reads about the Agent tool: its description, the rules of delegating, its input schema."""

from __future__ import annotations

import copy
from typing import Any

from tui.config.agent_files import MODELS
from tui.tools.rules import Rule, bullets

AGENT_RULES = (
    Rule(
        "when-to-delegate",
        "Delegate broad reading (across many files) or independent work that can run in parallel; a handful of "
        "calls you make yourself. Once you delegate something, do not also do it yourself.",
        "A subagent costs a fresh context and a lossy handoff; duplicated work costs twice.",
    ),
    Rule(
        "relay-the-report",
        "The agent's final message comes back to you, not to the user: relay what matters.",
        "The user never sees a subagent's report unless the main agent passes it on.",
    ),
    Rule(
        "no-invented-results",
        "You are told when a background agent ends; until then its result is unknown: never guess it, say it is "
        "still running.",
        "A predicted result reads like a real one; the user would act on it.",
    ),
)
DESCRIPTION = (
    "Run a subagent on a self-contained task in its own context. It sees only `prompt`: say all it needs; "
    "its final message is the result. Agent calls in one response run in parallel.\n"
    f"{bullets(AGENT_RULES)}\nTypes:"
)
INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "description": {"type": "string", "description": "3-5 words"},
        "prompt": {"type": "string"},
        "subagent_type": {"type": "string"},
        "model": {
            "type": "string",
            "enum": list(MODELS),
            "description": "The agent's model; default: its type's model, else yours",
        },
        "run_in_background": {
            "type": "boolean",
            "description": "Return a task id at once and go on; you are told when it ends",
        },
        "name": {"type": "string", "description": "A short name for the agent in the task list and its path"},
        "isolation": {
            "type": "string",
            "enum": ["worktree"],
            "description": "Work in its own git worktree (removed when it changed nothing)",
        },
    },
    "required": ["description", "prompt"],
    "additionalProperties": False,
}


def agent_schema(profiles: dict[str, Any]) -> dict[str, Any]:
    """INPUT_SCHEMA whose `model` also takes each provider profile's models as `NAME:MODEL`."""
    schema = copy.deepcopy(INPUT_SCHEMA)
    field = schema["properties"]["model"]
    if all(profile.models for profile in profiles.values()):
        field["enum"] = [*MODELS, *(f"{name}:{m}" for name, profile in profiles.items() for m in profile.models)]
    else:  # a profile that lists no models: any of its names goes
        del field["enum"]
        field["description"] = (
            f"{field['description']} ({', '.join(MODELS)}, or NAME:MODEL for provider {', '.join(profiles)})"
        )
    return schema
