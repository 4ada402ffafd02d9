"""Thinking and effort: what each model takes, Claude Code's thinking words, the request fields of a turn."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from tui.agent.api.request import build_request
from tui.agent.api.thinking import (
    EFFORT_LEVELS,
    ThinkingChoice,
    default_effort,
    effective_effort,
    effort_refusal,
    model_thinking,
    off_refusal,
    think_budget,
    thinking_on,
)
from tui.agent.hook_points import SessionHooks
from tui.agent.options import AgentOptions


@pytest.mark.parametrize(
    ("prompt", "budget"),
    [
        ("fix the bug", 0),
        ("think about the cache", 4_000),
        ("think about it, then fix", 10_000),
        ("Think before you answer", 4_000),
        ("please think hard about it", 10_000),
        ("megathink: why", 10_000),
        ("think harder", 31_999),
        ("ULTRATHINK the design", 31_999),
        ("think really hard", 31_999),
        ("rethink the plan", 0),  # a word boundary, as Claude Code matches
        ("thinking aloud", 0),
        ("ultrathinker", 0),
    ],
)
def test_thinking_words_set_claude_codes_budgets(prompt, budget):
    assert think_budget(prompt) == budget


def test_effort_levels_are_the_sdk_2_literal():
    # anthropic 2.x OutputConfigParam.effort: Literal["low", "medium", "high", "xhigh", "max"]
    assert EFFORT_LEVELS == ("low", "medium", "high", "xhigh", "max")


@pytest.mark.parametrize(
    ("model", "adaptive", "manual", "efforts"),
    [
        ("claude-sonnet-5-5", True, False, EFFORT_LEVELS),
        ("us.anthropic.claude-sonnet-5-5-v1:0", True, False, EFFORT_LEVELS),  # a Bedrock inference profile
        ("claude-opus-4-8", True, False, EFFORT_LEVELS),
        ("claude-opus-4-6", True, True, ("low", "medium", "high", "max")),
        ("claude-opus-4-5-20251101", False, True, ("low", "medium", "high")),
        ("claude-haiku-4-5", False, True, ()),
        ("gpt-5", False, False, ()),
    ],
)
def test_what_each_model_takes(model, adaptive, manual, efforts):
    support = model_thinking(model)
    assert (support.adaptive, support.manual, support.efforts) == (adaptive, manual, efforts)


def test_the_default_choice_sends_the_models_default_effort_as_claude_code_does():
    """Claude Code 2.1.332 sends each model's default effort on every request when none is chosen."""
    assert ThinkingChoice().fields("claude-sonnet-5-5", 16000) == {
        "max_tokens": 16000,
        "thinking": {"type": "adaptive", "display": "summarized"},
        "output_config": {"effort": "medium"},
    }
    assert ThinkingChoice().fields("claude-opus-4-8", 16000)["output_config"] == {"effort": "high"}
    assert ThinkingChoice().fields("claude-haiku-4-5", 16000) == {"max_tokens": 16000}
    assert ThinkingChoice().fields("offline-demo", 16000)["output_config"] == {"effort": "high"}


def test_thinking_off_uses_the_type_each_model_accepts():
    off = ThinkingChoice(thinking=False)
    assert off.fields("claude-sonnet-5-5", 1000)["thinking"] == {"type": "between_tools"}
    assert off.fields("claude-opus-5", 1000)["thinking"] == {"type": "disabled"}
    assert "thinking" not in off.fields("claude-opus-4-8", 1000)  # no thinking unless asked
    assert off.fields("claude-fable-5-2", 1000)["thinking"] == {"type": "adaptive", "display": "summarized"}


def test_thinking_on_for_a_manual_model_gets_a_budget_below_max_tokens():
    fields = ThinkingChoice(thinking=True).fields("claude-haiku-4-5", 16000)
    assert fields["thinking"] == {"type": "enabled", "budget_tokens": 31_999}
    assert fields["max_tokens"] == 47_999  # room for the answer, within the model's 64k
    fields = ThinkingChoice(budget=4_000).fields("claude-sonnet-4-5", 16000)
    assert fields == {"max_tokens": 16000, "thinking": {"type": "enabled", "budget_tokens": 4_000}}


def test_words_raise_the_effort_on_adaptive_models():
    assert ThinkingChoice(budget=31_999).fields("claude-sonnet-5-5", 1000)["output_config"] == {"effort": "max"}
    assert ThinkingChoice(budget=10_000, effort="low").fields("claude-opus-4-8", 1000)["output_config"] == {
        "effort": "high"
    }
    assert ThinkingChoice(budget=10_000, effort="max").fields("claude-opus-4-8", 1000)["output_config"] == {
        "effort": "max"
    }
    # below `think hard` the words leave the effort at the model's default
    assert ThinkingChoice(budget=4_000).fields("claude-opus-4-8", 1000)["output_config"] == {"effort": "high"}
    # the words turn thinking on for the turn even where the user switched it off
    assert ThinkingChoice(thinking=False, budget=4_000).fields("offline-demo", 1000)["thinking"]["type"] == "adaptive"


def test_effort_is_sent_only_where_the_model_takes_that_level():
    assert ThinkingChoice(effort="xhigh").fields("claude-opus-4-8", 1000)["output_config"] == {"effort": "xhigh"}
    # a level the model does not take runs at high, as Claude Code sends it
    assert ThinkingChoice(effort="xhigh").fields("claude-opus-4-6", 1000)["output_config"] == {"effort": "high"}
    assert "output_config" not in ThinkingChoice(effort="low").fields("claude-haiku-4-5", 1000)


def test_refusals_are_one_sentence():
    assert effort_refusal("claude-haiku-4-5", model_thinking("claude-haiku-4-5"), "low") == (
        "claude-haiku-4-5 has no effort setting; nothing is sent for it."
    )
    assert "low, medium, high, max" in effort_refusal("claude-opus-4-6", model_thinking("claude-opus-4-6"), "xhigh")
    assert "always thinks" in off_refusal("claude-fable-5", model_thinking("claude-fable-5"), None)
    assert "effort high or lower" in off_refusal("claude-sonnet-5-5", model_thinking("claude-sonnet-5-5"), "max")
    assert off_refusal("claude-sonnet-5-5", model_thinking("claude-sonnet-5-5"), "medium") is None
    assert "no extended thinking" in off_refusal("gpt-5", model_thinking("gpt-5"), None)


def test_status_line_state():
    assert thinking_on("claude-sonnet-5-5", None) and not thinking_on("claude-sonnet-5-5", False)
    assert not thinking_on("claude-haiku-4-5", None) and thinking_on("claude-haiku-4-5", True)
    assert thinking_on("claude-fable-5", False)  # cannot be turned off


def test_build_request_puts_the_choice_in_the_body(tmp_path: Path):
    body = build_request(
        model="claude-opus-4-8",
        max_tokens=1000,
        system=[],
        tools=[],
        messages=[{"role": "user", "content": "hi"}],
        choice=ThinkingChoice(effort="low"),
    )
    assert body["output_config"] == {"effort": "low"} and body["thinking"]["type"] == "adaptive"
    assert list(body)[-1] == "stream"


def test_a_turn_keeps_the_choice_it_began_with():
    options = AgentOptions(thinking=False, effort="high")
    choice = ThinkingChoice.for_turn(options, "ultrathink this")
    options.thinking, options.effort = True, "low"
    assert choice == ThinkingChoice(thinking=False, effort="high", budget=31_999)
    assert ThinkingChoice.for_turn(options, "ultrathink this", words=False).budget == 0  # a subagent's prompt


@pytest.mark.parametrize(
    ("model", "chosen", "level"),
    [  # what Claude Code 2.1.332 sent in `effort.level` and `output_config.effort` (tests/differential, hooks)
        ("claude-opus-5-5", None, "medium"),
        ("claude-sonnet-5-5", None, "medium"),
        ("claude-haiku-5-5", None, "medium"),
        ("claude-fable-5-2", None, "medium"),
        ("claude-fable-5", None, "high"),
        ("claude-opus-4-7", None, "xhigh"),
        ("claude-opus-4-6", None, "high"),
        ("claude-sonnet-4-6", None, "high"),
        ("claude-opus-4-5", None, "high"),
        ("claude-haiku-4-5", None, None),
        ("claude-sonnet-4-5", None, None),
        ("claude-opus-5-5", "low", "low"),
        ("claude-opus-5-5", "max", "max"),
        ("claude-opus-4-6", "xhigh", "high"),
        ("claude-opus-4-5", "max", "high"),
        ("claude-haiku-4-5", "low", None),
    ],
)
def test_the_effort_a_model_runs_at(model: str, chosen: str | None, level: str | None) -> None:
    assert effective_effort(model, chosen) == level
    if chosen is None:
        assert default_effort(model) == level


def test_hooks_are_told_the_effort_claude_code_tells_them() -> None:
    def effort(model: str, chosen: str | None) -> dict[str, object]:
        fake = SimpleNamespace(session=SimpleNamespace(options=AgentOptions(model=model, effort=chosen)))
        return SessionHooks.effort(fake)  # type: ignore[arg-type]

    assert effort("claude-sonnet-5-5", None) == {"effort": {"level": "medium"}}  # was "high" for every model
    assert effort("claude-opus-4-7", None) == {"effort": {"level": "xhigh"}}
    assert effort("claude-opus-5-5", "low") == {"effort": {"level": "low"}}
    assert effort("claude-haiku-4-5", "low") == {}  # no effort: no key, as Claude Code
