"""What `/model` lists: the provider's models where it can list them, else the short names and their ids."""

from __future__ import annotations

from typing import Any

from .config import SHORT_NAMES, ProviderError, resolve_provider


def model_lines(client: Any, options: Any) -> list[str]:
    """One line per model, the current one marked; a sentence when the list cannot be had."""
    try:
        config = resolve_provider(options.provider, options.model_ids)
    except ProviderError as exc:
        return [str(exc)]
    current = config.model_id(options.model)
    if config.name == "anthropic":
        try:
            ids = [m.id for m in client.models.list(limit=100)]
        except Exception as exc:  # a proxy or gateway without /v1/models: say so, /model NAME still works
            return [f"The API did not list its models ({type(exc).__name__}); switch with /model NAME."]
        return [f"{'▸' if i == current else ' '} {i}" for i in ids] or ["The API listed no models."]
    lines = [f"{'▸' if config.model_id(s) == current else ' '} {s} → {config.model_id(s)}" for s in SHORT_NAMES]
    lines.append(f"{config.name} models are not listed here: these are the short names and the ids they map to "
                 "(change them with [model_ids] in settings).")
    return lines
