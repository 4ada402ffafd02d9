"""Model prices, context windows and output limits, dated (prices change; keep this table current).

`max_output` is the largest `max_tokens` a model takes (the anthropic SDK lists no limits, only
which models it refuses a non-streaming call for); every reply is streamed, so it is safe to ask for.

USD per million tokens: input, 5-minute cache write, 1-hour cache write, cache read, output.
"""

from __future__ import annotations

from typing import Any, NamedTuple

PRICES_AS_OF = "2026-11-30"

#: the model id the offline model answers as (here, with its price of nothing, so the CLI can name it without
#: importing the offline package, which imports httpx)
OFFLINE_MODEL_NAME = "offline-demo"


class ModelInfo(NamedTuple):
    """One model's prices (USD per million tokens) and sizes; a NamedTuple, ~0.5 ms cheaper to build than a frozen
    dataclass at import (the CLI imports this module before the app's first frame)."""

    input: float
    cache_write_5m: float
    cache_write_1h: float
    cache_read: float
    output: float
    context_window: int = 1_000_000
    max_output: int = 128_000


MODELS: dict[str, ModelInfo] = {
    "claude-opus-5-5": ModelInfo(4, 5, 8, 0.20, 20),
    "claude-sonnet-5-5": ModelInfo(2, 2.5, 4, 0.20, 10),
    "claude-haiku-5-5": ModelInfo(0.10, 0.125, 0.20, 0.01, 0.50),
    "claude-fable-5-2": ModelInfo(8, 10, 16, 0.20, 40),
    "claude-fable-5-1": ModelInfo(10, 12.5, 20, 0.25, 50),
    "claude-mythos-5-1": ModelInfo(10, 12.5, 20, 0.25, 50),
    "claude-opus-5": ModelInfo(5, 6.25, 10, 0.50, 25),
    "claude-sonnet-5": ModelInfo(2, 2.5, 4, 0.20, 10),
    "claude-fable-5": ModelInfo(10, 12.5, 20, 1.0, 50),
    "claude-mythos-5": ModelInfo(10, 12.5, 20, 1.0, 50),
    "claude-opus-4-8": ModelInfo(5, 6.25, 10, 0.50, 25),
    "claude-opus-4-7": ModelInfo(5, 6.25, 10, 0.50, 25),
    "claude-opus-4-6": ModelInfo(5, 6.25, 10, 0.50, 25),
    "claude-opus-4-5": ModelInfo(5, 6.25, 10, 0.50, 25, 200_000, 64_000),
    "claude-sonnet-4-6": ModelInfo(3, 3.75, 6, 0.30, 15),
    "claude-sonnet-4-5": ModelInfo(3, 3.75, 6, 0.30, 15, 200_000, 64_000),
    "claude-haiku-4-5": ModelInfo(1, 1.25, 2, 0.10, 5, 200_000, 64_000),
    # the built-in offline demo model costs nothing
    OFFLINE_MODEL_NAME: ModelInfo(0, 0, 0, 0, 0, 200_000, 32_000),
}


def known_models() -> list[str]:
    """The model ids agent-tui knows prices for, newest first (the offline demo left out): `/model`'s list when
    the API gives none."""
    return [name for name in MODELS if name != OFFLINE_MODEL_NAME]


#: whose prices estimate a model the table does not list
DEFAULT_PRICE_MODEL = "claude-sonnet-5-5"
_DEFAULT = MODELS[DEFAULT_PRICE_MODEL]


#: a profile model the table does not know and its profile does not size: a window and an output limit that
#: most servers take
UNKNOWN_WINDOW, UNKNOWN_OUTPUT = 200_000, 32_000


def _profile_info(model: str) -> tuple[bool, ModelInfo] | None:
    """(whether priced, the info) for a provider profile's `NAME:MODEL`; None for a plain model name."""
    from tui.providers.profiles import lookup

    profile, name = lookup(model)
    if profile is None:
        return None
    table = MODELS.get(priced_name(name) or "")
    window = profile.context_window or (table.context_window if table else UNKNOWN_WINDOW)
    output = profile.max_output or (table.max_output if table else UNKNOWN_OUTPUT)
    if profile.price is None:
        base = _DEFAULT  # estimated (and reported as unpriced), never counted as free
        return False, ModelInfo(
            base.input, base.cache_write_5m, base.cache_write_1h, base.cache_read, base.output, window, output
        )
    price = profile.price
    info = ModelInfo(price.input, price.cache_write, price.cache_write, price.cache_read, price.output, window, output)
    return True, info


def priced_name(model: str) -> str | None:
    """The table's id for `model` (dated suffixes map to their base id), or None when it has no price.

    A provider profile's `NAME:MODEL` is its own name when the profile gives a price.
    """
    if ":" in model and (found := _profile_info(model)) is not None:
        return model if found[0] else None
    if model in MODELS:
        return model
    for name in sorted(MODELS, key=len, reverse=True):
        if model.startswith(name):
            return name
    return None


def has_price(model: str) -> bool:
    """True when the table lists `model`; costs of other models are estimated at DEFAULT_PRICE_MODEL's prices."""
    return priced_name(model) is not None


def model_info(model: str) -> ModelInfo:
    """Prices for `model`; dated suffixes (claude-haiku-4-5-20251001) map to their base id."""
    if ":" in model and (found := _profile_info(model)) is not None:
        return found[1]
    name = priced_name(model)
    return MODELS[name] if name is not None else _DEFAULT


def table_name(model: str) -> str | None:
    """The table's id within `model`: a dated id, or a provider's (us.anthropic.claude-…-v1:0); None if unlisted."""
    return priced_name(model) or next((n for n in sorted(MODELS, key=len, reverse=True) if n in model), None)


def max_output_tokens(model: str, setting: int | None = None) -> int:
    """max_tokens for a reply of `model`: its output limit, or the `max_tokens` setting when set.

    A profile's `NAME:MODEL` takes the profile's `max_output` (else the table's, else UNKNOWN_OUTPUT); a plain
    name the table does not list gets UNKNOWN_OUTPUT, which the setting may exceed. A setting is kept within
    any other limit.
    """
    if ":" in model and (found := _profile_info(model)) is not None:
        limit, known = found[1].max_output, True
    else:
        name = table_name(model)
        limit, known = (MODELS[name].max_output, True) if name is not None else (UNKNOWN_OUTPUT, False)
    if not setting:
        return limit
    return min(setting, limit) if known else setting


def usage_cost(usage: dict[str, Any], model: str) -> float:
    """Cost in USD of one response's usage."""
    info = model_info(model)
    inp = usage.get("input_tokens") or 0
    out = usage.get("output_tokens") or 0
    read = usage.get("cache_read_input_tokens") or 0
    created = usage.get("cache_creation_input_tokens") or 0
    breakdown = usage.get("cache_creation") or {}
    w1h = breakdown.get("ephemeral_1h_input_tokens") or 0
    w5m = breakdown.get("ephemeral_5m_input_tokens")
    if w5m is None:
        w5m = max(created - w1h, 0)
    total = (
        inp * info.input
        + w5m * info.cache_write_5m
        + w1h * info.cache_write_1h
        + read * info.cache_read
        + out * info.output
    )
    return total / 1_000_000 + web_searches(usage) * WEB_SEARCH_USD


USAGE_KEYS = ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")


def add_usage(total: dict[str, int], usage: dict[str, Any]) -> None:
    """Add one response's usage into a running total (in place); web searches count as `web_search_requests`."""
    for key in USAGE_KEYS:
        total[key] = total.get(key, 0) + int(usage.get(key) or 0)
    if searches := web_searches(usage):
        total["web_search_requests"] = total.get("web_search_requests", 0) + searches


#: the API's price of one web search ($10 per 1,000)
WEB_SEARCH_USD = 0.01


def web_searches(usage: dict[str, Any]) -> int:
    """How many web searches the server ran for one response (`usage.server_tool_use`), or a total's count."""
    server = usage.get("server_tool_use")
    count = server.get("web_search_requests") if isinstance(server, dict) else usage.get("web_search_requests")
    return int(count or 0)


def total_tokens(usage: dict[str, int]) -> int:
    return sum(int(usage.get(k) or 0) for k in USAGE_KEYS)
