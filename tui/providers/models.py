"""What `/model` offers: the API's models where it can list them, else the names agent-tui knows."""

from __future__ import annotations

from typing import Any

from .config import SHORT_NAMES, ProviderError, resolve_provider

#: what the picker says while the offline demo answers
OFFLINE_NOTE = (
    "The offline demo model answers until an API key is set (/login or ANTHROPIC_API_KEY); "
    "the model picked here is used from then on."
)


def known_models() -> list[str]:
    """The model ids agent-tui knows prices for, newest first (the offline demo left out)."""
    from tui.agent.pricing import MODELS

    return [name for name in MODELS if name != "offline-demo"]


def model_choices(client: Any, options: Any, offline: bool) -> tuple[list[tuple[str, str]], str]:
    """((model, how it is shown) to pick from, a sentence about where they come from): the API's list when it
    gives one, else the names agent-tui knows."""
    known = [(m, m) for m in known_models()]
    if offline:
        return known, OFFLINE_NOTE
    try:
        config = resolve_provider(options.provider, options.model_ids)
    except ProviderError as exc:
        return known, str(exc)
    if config.name != "anthropic":
        return (
            [(short, f"{short} → {config.model_id(short)}") for short in SHORT_NAMES],
            f"{config.name} models are not listed here: these short names map to those ids "
            "(change them with [model_ids] in the settings).",
        )
    try:
        ids = [m.id for m in client.models.list(limit=100)]
    except Exception as exc:  # a gateway without /v1/models: the known names still work
        return known, f"The API did not list its models ({type(exc).__name__}); these are the ones agent-tui knows."
    return ([(i, i) for i in ids], "The models the API lists.") if ids else (known, "The API listed no models.")
