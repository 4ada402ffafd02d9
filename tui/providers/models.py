"""What `/model` offers: the API's models where it can list them, else the names agent-tui knows."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .config import SHORT_NAMES, ProviderError, resolve_provider

#: what the picker says while the offline demo answers
OFFLINE_NOTE = (
    "The offline demo model answers until an API key is set (/login or ANTHROPIC_API_KEY); "
    "the model picked here is used from then on."
)


def profile_choices(options: Any) -> list[tuple[str, str]]:
    """Each provider profile's models as `NAME:MODEL`, shown with where they are served."""
    profiles = getattr(options, "profiles", None) or {}
    return [
        (f"{name}:{model}", f"{name}:{model}  ({profile.base_url or profile.kind})")
        for name, profile in profiles.items()
        for model in profile.models
    ]


def model_choices(client: Any, options: Any, offline: bool, known: Sequence[str]) -> tuple[list[tuple[str, str]], str]:
    """((model, how it is shown) to pick from, a sentence about where they come from): the API's list when it
    gives one, else `known` (the names agent-tui knows, `tui.agent.cost.pricing.known_models()`); each provider
    profile's models after them."""
    models, note = _default_choices(client, options, offline, known)
    return models + profile_choices(options), note


def _default_choices(
    client: Any, options: Any, offline: bool, names: Sequence[str]
) -> tuple[list[tuple[str, str]], str]:
    """The default provider's models and where they come from."""
    known = [(m, m) for m in names]
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
        lister = getattr(client, "default", client)  # the routing client lists the default provider's
        ids = [m.id for m in lister.models.list(limit=100)]
    except Exception as exc:  # a gateway without /v1/models: the known names still work
        return known, f"The API did not list its models ({type(exc).__name__}); these are the ones agent-tui knows."
    return ([(i, i) for i in ids], "The models the API lists.") if ids else (known, "The API listed no models.")
