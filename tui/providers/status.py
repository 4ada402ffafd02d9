"""What `/status` shows: provider, model, base URL, where the key came from (never the key), proxy, CA bundle."""

from __future__ import annotations

import os
from typing import Any

from .config import ProviderConfig, ProviderError, resolve_provider
from .credentials import env_key_present
from .network import ca_bundle, proxy_for

#: what a provider lacks, one line each (agent-tui needs none of these, so nothing fails)
MISSING = {
    "bedrock": "token counting and message batches (the context meter estimates instead)",
    "vertex": "message batches",
}


def base_url(config: ProviderConfig) -> str:
    """The URL requests go to."""
    if config.base_url:
        return config.base_url
    if config.name == "bedrock":
        return f"https://bedrock-runtime.{config.region}.amazonaws.com"
    if config.name == "vertex":
        host = (
            "aiplatform.googleapis.com" if config.region == "global" else f"{config.region}-aiplatform.googleapis.com"
        )
        return f"https://{host}/v1"
    return "https://api.anthropic.com"


def credential_source(config: ProviderConfig, options: Any) -> str:
    """Where the credential comes from, by name only."""
    if config.name == "bedrock":
        if config.skip_auth:
            return "none: requests are unsigned (CLAUDE_CODE_SKIP_BEDROCK_AUTH)"
        if os.environ.get("AWS_ACCESS_KEY_ID"):
            return "AWS_ACCESS_KEY_ID (environment), SigV4-signed"
        return f"the AWS credential chain (profile {os.environ.get('AWS_PROFILE') or 'default'}), SigV4-signed"
    if config.name == "vertex":
        if config.skip_auth:
            return "none: requests are unsigned (CLAUDE_CODE_SKIP_VERTEX_AUTH)"
        adc = os.environ.get("GOOGLE_APPLICATION_CREDENTIALS")
        return f"Google application-default credentials{f' ({adc})' if adc else ''}"
    for name in ("ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_API_KEY"):
        if os.environ.get(name):
            return f"{name} (environment)"
    if options.api_key_helper:
        return f"the api_key_helper command ({options.api_key_helper})"
    from .keystore import KeyStoreError, load_key

    try:
        stored = load_key()
    except KeyStoreError as exc:
        return f"none ({exc})"
    return stored[1] if stored else "none"


def status_lines(options: Any, offline: bool) -> list[str]:
    """The lines of /status for AgentOptions `options`."""
    if offline:
        return [f"Provider: the offline demo model ({options.model}); no network, no credential."]
    try:
        config = resolve_provider(options.provider, options.model_ids)
    except ProviderError as exc:
        return [f"Provider: {exc}"]
    url = base_url(config)
    bundle = ca_bundle()
    model = (
        options.model
        if config.model_id(options.model) == options.model
        else (f"{options.model} (sent as {config.model_id(options.model)})")
    )
    lines = [
        f"Provider: {config.name}" + (f" (chosen by {config.chosen_by})" if config.chosen_by != "default" else ""),
        f"Model: {model}" + (f"; fallback {options.fallback_model}" if options.fallback_model else ""),
        f"Base URL: {url}",
        f"Credential: {credential_source(config, options)}",
        f"Proxy: {proxy_for(url) or 'none'}",
        f"CA bundle: {f'{bundle[1]} ({bundle[0]})' if bundle else 'the system default'}",
    ]
    if config.name == "vertex" and config.region:
        lines.insert(3, f"Region: {config.region_for(options.model)}, project {config.project_id}")
    if config.name in MISSING:
        lines.append(f"Not on {config.name}: {MISSING[config.name]}.")
    if env_key_present() and options.api_key_helper and config.name == "anthropic":
        lines.append("The api_key_helper is not used while an ANTHROPIC_ key is set in the environment.")
    return lines
