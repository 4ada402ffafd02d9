"""Provider options from settings and the environment, checked before anything starts."""

from __future__ import annotations

import os
from typing import Any

from .config import ProviderError, canonical_model, resolve_provider
from .credentials import check_env_keys, custom_headers, env_key_present, key_helper
from .network import check_ca_bundle, check_proxies
from .profiles import Profile, profile_prefix, profiles_from, use_profiles


def check_profile_model(where: str, model: str | None, profiles: dict[str, Profile]) -> None:
    """ProviderError when `model` is written `NAME:MODEL` and no profile is called NAME."""
    name = profile_prefix(model or "")
    if name is None or name in profiles or "." in name:
        return  # a plain name, a known profile, or a provider's own id with a colon (Bedrock's `…-v1:0`)
    known = f" (profiles: {', '.join(profiles)})" if profiles else ""
    raise ProviderError(
        f"{where} `{model}` names provider `{name}`, but no `[providers.{name}]` table defines it{known}: "
        "add one to settings.toml (see docs/providers.md)."
    )


def configure(opts: Any, settings: Any, *, model_flag: str | None = None, fallback_model: str | None = None) -> None:
    """Fill the provider fields of AgentOptions `opts`; ProviderError (a ValueError) when they cannot work.

    ANTHROPIC_MODEL wins over the `model` setting, `--model` over both (as Claude Code).
    """
    opts.provider = getattr(settings, "provider", None) or None
    opts.model_ids = dict(getattr(settings, "model_ids", None) or {})
    opts.api_key_helper = getattr(settings, "api_key_helper", None) or None
    opts.profiles = profiles_from(
        getattr(settings, "providers", None) or {}, getattr(settings, "provider_sources", None)
    )
    if not model_flag and os.environ.get("ANTHROPIC_MODEL"):
        opts.model = os.environ["ANTHROPIC_MODEL"]
    opts.model = canonical_model(opts.model)
    small = os.environ.get("ANTHROPIC_SMALL_FAST_MODEL") or getattr(settings, "small_fast_model", None)
    opts.small_fast_model = canonical_model(small) if small else None
    if fallback_model:
        opts.fallback_model = canonical_model(fallback_model)
        if opts.fallback_model == opts.model:
            raise ProviderError(f"--fallback-model {fallback_model} is the main model too: pick a different one.")
    for where, model in (
        ("--model" if model_flag else "the model", opts.model),
        ("the small fast model", opts.small_fast_model),
        ("--fallback-model", opts.fallback_model),
    ):
        check_profile_model(where, model, opts.profiles)
    use_profiles(opts.profiles)
    if opts.offline:  # --offline talks to no provider
        return
    config = resolve_provider(opts.provider, opts.model_ids)
    check_ca_bundle()
    check_proxies()  # a proxy URL httpx cannot use is named now, not as an internal error at the first request
    custom_headers()  # a malformed ANTHROPIC_CUSTOM_HEADERS is reported now, not at the first request
    if config.name != "anthropic":
        from .clients import check_extra

        check_extra(config)
        return
    check_env_keys()  # so is a key no header can carry
    if opts.api_key_helper and not env_key_present():
        key_helper(opts.api_key_helper, opts.project_dir).key()  # a broken helper stops the start, in one sentence
