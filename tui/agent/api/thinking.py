"""Extended thinking and effort: what each model accepts, and the request fields a turn sends.

The request fields follow the SDK's types (anthropic 2.x `ThinkingConfigParam`, `OutputConfigParam`):
`thinking` is `enabled` (a `budget_tokens` of at least 1,024, below `max_tokens`), `adaptive`,
`disabled` or `between_tools`; `output_config.effort` is one of EFFORT_LEVELS. Which of them a model
takes is the API's, per model (tests/fakeapi/validate.py checks the same rules). A choice made in the middle of a turn waits for the next turn:
the API ignores thinking toggled inside a tool loop.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any, NamedTuple

from tui.config.lean_dataclass import lean_dataclass

#: `OutputConfigParam.effort` in anthropic 2.x, lowest first
EFFORT_LEVELS = ("low", "medium", "high", "xhigh", "max")
#: Claude Code's thinking words and the budget each sets (its MAX_THINKING_TOKENS levels), strongest first
THINK_WORDS: tuple[tuple[int, tuple[str, ...]], ...] = (
    (
        31_999,
        (
            "ultrathink",
            "think harder",
            "think intensely",
            "think longer",
            "think really hard",
            "think super hard",
            "think very hard",
        ),
    ),
    (10_000, ("megathink", "think hard", "think about it", "think a lot", "think deeply", "think more")),
    (4_000, ("think",)),
)
#: the budget when thinking is switched on for a model that takes only a manual budget (Claude Code's default)
DEFAULT_BUDGET = 31_999
MIN_BUDGET = 1_024


@cache
def _patterns() -> list[tuple[int, re.Pattern[str]]]:
    """The thinking words' patterns, compiled on the first prompt (not at import: the CLI's parser imports this
    module for EFFORT_LEVELS before the app's first frame)."""
    return [
        (budget, re.compile(r"\b(?:" + "|".join(re.escape(w) for w in words) + r")\b", re.IGNORECASE))
        for budget, words in THINK_WORDS
    ]


class ModelThinking(NamedTuple):
    """What one model accepts for thinking and effort (a NamedTuple: ~0.5 ms cheaper to build at import than a frozen
    dataclass, and as immutable)."""

    #: `thinking: {"type": "adaptive"}`
    adaptive: bool = False
    #: `thinking: {"type": "enabled", "budget_tokens": N}`
    manual: bool = False
    #: thinks when the request says nothing (Opus 5, Sonnet 5, Fable, Mythos)
    thinks_by_default: bool = False
    #: agent-tui asks for thinking until the user turns it off (adaptive models, as before this choice existed)
    on_by_default: bool = True
    #: the thinking type that turns it off; None when it cannot be turned off
    off: str | None = "disabled"
    #: the highest effort at which `off` is accepted (None: any)
    off_max_effort: str | None = None
    #: `output_config.effort` levels the model takes (empty: no effort setting)
    efforts: tuple[str, ...] = ()

    @property
    def has_thinking(self) -> bool:
        return self.adaptive or self.manual

    def default_on(self) -> bool:
        """Thinking when the user has not chosen."""
        return self.has_thinking and (self.thinks_by_default or (self.on_by_default and self.adaptive))


_ALL = EFFORT_LEVELS
_NO_XHIGH = ("low", "medium", "high", "max")
#: model id fragments, most specific first (a provider's id holds the same fragment: us.anthropic.claude-…)
MODEL_THINKING: tuple[tuple[str, ModelThinking], ...] = (
    ("fable-5", ModelThinking(adaptive=True, thinks_by_default=True, off=None, efforts=_ALL)),
    ("mythos-5", ModelThinking(adaptive=True, thinks_by_default=True, off=None, efforts=_ALL)),
    ("opus-5-5", ModelThinking(adaptive=True, thinks_by_default=True, off=None, efforts=_ALL)),
    (
        "sonnet-5-5",
        ModelThinking(adaptive=True, thinks_by_default=True, off="between_tools", off_max_effort="high", efforts=_ALL),
    ),
    ("haiku-5-5", ModelThinking(adaptive=True, efforts=_ALL)),
    ("opus-5", ModelThinking(adaptive=True, thinks_by_default=True, off_max_effort="high", efforts=_ALL)),
    ("sonnet-5", ModelThinking(adaptive=True, thinks_by_default=True, efforts=_ALL)),
    ("opus-4-8", ModelThinking(adaptive=True, efforts=_ALL)),
    ("opus-4-7", ModelThinking(adaptive=True, efforts=_ALL)),
    ("opus-4-6", ModelThinking(adaptive=True, manual=True, efforts=_NO_XHIGH)),
    ("sonnet-4-6", ModelThinking(adaptive=True, manual=True, efforts=_NO_XHIGH)),
    ("opus-4-5", ModelThinking(manual=True, efforts=("low", "medium", "high"))),
    ("sonnet-4-5", ModelThinking(manual=True)),
    ("haiku-4-5", ModelThinking(manual=True)),
    # the built-in offline model takes what the newest models take, so every choice can be tried offline
    ("offline-demo", ModelThinking(adaptive=True, on_by_default=False, efforts=_ALL)),
)
NO_THINKING = ModelThinking(off=None)
#: the effort Claude Code 2.1.332 sends when none is chosen: its model table's `default_effort`, most specific
#: first ("high" for a model not named here)
DEFAULT_EFFORTS: tuple[tuple[str, str], ...] = (
    ("fable-5-2", "medium"),
    ("mythos-5-2", "medium"),
    ("opus-5-5", "medium"),
    ("sonnet-5-5", "medium"),
    ("haiku-5-5", "medium"),
    ("opus-4-7", "xhigh"),
)


def model_thinking(model: str) -> ModelThinking:
    """What `model` accepts; NO_THINKING for a model this table does not know."""
    for fragment, support in MODEL_THINKING:
        if _names(model, fragment):
            return support
    return NO_THINKING


def _names(model: str, fragment: str) -> bool:
    return re.search(rf"(?:^|[-.]){re.escape(fragment)}(?:$|[-@:.])", model) is not None


def default_effort(model: str) -> str | None:
    """The effort `model` runs at when none is chosen, as Claude Code sends it; None for a model without effort."""
    if not model_thinking(model).efforts:
        return None
    return next((level for fragment, level in DEFAULT_EFFORTS if _names(model, fragment)), "high")


def effective_effort(model: str, chosen: str | None) -> str | None:
    """The effort a request on `model` runs at (Claude Code's `effort.level`): the chosen one where the model takes
    it, `high` for an `xhigh` or `max` it does not take, else the model's default; None for a model without effort."""
    support = model_thinking(model)
    if not support.efforts:
        return None
    if chosen in support.efforts:
        return chosen
    if chosen in ("xhigh", "max"):
        return "high"
    return default_effort(model)


def think_budget(prompt: str) -> int:
    """The thinking budget Claude Code's words in `prompt` ask for (`think`, `think hard`, `ultrathink` …); 0 for none."""
    for budget, pattern in _patterns():
        if pattern.search(prompt):
            return budget
    return 0


def effort_for_words(budget: int, support: ModelThinking) -> str | None:
    """On a model without budgets, the words raise the effort instead: `think hard` to high, `ultrathink` to the top."""
    if budget < 10_000 or not support.efforts:
        return None
    wanted = "high" if budget < 31_999 else support.efforts[-1]
    return wanted if wanted in support.efforts else None


def stronger(a: str | None, b: str | None) -> str | None:
    """The higher of two effort levels (None counts as unset)."""
    if a is None or b is None:
        return a or b
    return max(a, b, key=EFFORT_LEVELS.index)


def off_refusal(model: str, support: ModelThinking, effort: str | None) -> str | None:
    """Why thinking cannot be off on `model` (at `effort`), or None when it can."""
    if not support.has_thinking:
        return f"{model} has no extended thinking."
    if support.off is None:
        return f"{model} always thinks; its thinking cannot be turned off."
    limit = support.off_max_effort
    if limit and effort and EFFORT_LEVELS.index(effort) > EFFORT_LEVELS.index(limit):
        return f"{model} keeps thinking at effort {effort}; it can be turned off only at effort {limit} or lower."
    return None


def effort_refusal(model: str, support: ModelThinking, effort: str) -> str | None:
    """Why `model` does not take `effort`, or None when it does."""
    if effort not in EFFORT_LEVELS:
        return f"Effort is one of {', '.join(EFFORT_LEVELS)}, not {effort!r}."
    if not support.efforts:
        return f"{model} has no effort setting; nothing is sent for it."
    if effort not in support.efforts:
        return f"{model} takes effort {', '.join(support.efforts)}; {effort} is not one of them."
    return None


@lean_dataclass(frozen=True)
class ThinkingChoice:
    """What the user chose for one turn: thinking on/off (None: the model's default), effort, the words' budget."""

    thinking: bool | None = None
    effort: str | None = None
    budget: int = 0

    @classmethod
    def for_turn(cls, options: Any, prompt: str, *, words: bool = True) -> ThinkingChoice:
        """The choice a turn keeps for all its requests; `words`: the prompt is the user's (not a subagent's)."""
        return cls(
            getattr(options, "thinking", None), getattr(options, "effort", None), think_budget(prompt) if words else 0
        )

    def fields(self, model: str, max_tokens: int) -> dict[str, Any]:
        """The request fields for `model`: `thinking`, `output_config` and `max_tokens` where they change."""
        support = model_thinking(model)
        out: dict[str, Any] = {"max_tokens": max_tokens}
        effort = effective_effort(model, self.effort)  # the model's default when none is chosen, as Claude Code sends
        on = support.default_on() if self.thinking is None else self.thinking
        on = on or (support.has_thinking and support.off is None)  # it thinks anyway: keep its reasoning visible
        if self.budget and support.has_thinking:  # the words turn thinking on for this turn
            on = True
            if support.adaptive:  # no budget to set: the words raise the effort instead
                effort = stronger(effort, effort_for_words(self.budget, support))
        if on and support.adaptive:
            out["thinking"] = {"type": "adaptive", "display": "summarized"}
        elif on and support.manual:
            budget = self.budget or DEFAULT_BUDGET
            if budget >= max_tokens:  # budget_tokens must stay below max_tokens, with room left for the answer
                out["max_tokens"] = min(_max_output(model), budget + max_tokens)
            out["thinking"] = {"type": "enabled", "budget_tokens": max(MIN_BUDGET, min(budget, out["max_tokens"] - 1))}
        elif not on and support.thinks_by_default and off_refusal(model, support, effort) is None:
            out["thinking"] = {"type": support.off}
        if effort:
            out["output_config"] = {"effort": effort}
        return out


def _max_output(model: str) -> int:
    from tui.agent.cost.pricing import max_output_tokens

    return max_output_tokens(model)


def thinking_on(model: str, choice: bool | None) -> bool:
    """Whether a turn on `model` thinks with this choice (for the status line)."""
    support = model_thinking(model)
    if not support.has_thinking:
        return False
    return (support.default_on() if choice is None else choice) or support.off is None
