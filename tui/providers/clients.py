"""The SDK's own Bedrock and Vertex clients, with model-id mapping and unsigned (gateway) requests.

The cloud libraries (botocore, google-auth) load only when their provider is chosen.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import os
from typing import Any

from tui import install_hint

from .config import ProviderConfig, ProviderError, resolve_provider
from .credentials import custom_headers, env_key_present, key_helper
from .network import tls_verify
from .profiles import Profile
from .transport import http_client

#: the extra to install and the modules it brings, per provider
EXTRAS = {"bedrock": (("botocore", "boto3"),), "vertex": (("google.auth", "google-auth"), ("requests", "requests"))}


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def check_extra(config: ProviderConfig) -> None:
    """ProviderError (one sentence) when the chosen provider's extra is not installed; cheap, imports nothing."""
    if config.name not in EXTRAS or (config.name == "vertex" and config.skip_auth):
        return  # unsigned Vertex requests need no Google library
    for module, package in EXTRAS[config.name]:
        if not _installed(module):
            raise ProviderError(
                f"The {config.name} provider ({config.chosen_by}) needs {package}: {install_hint(config.name)}."
            )


def _map_model(options: Any, config: ProviderConfig) -> str | None:
    """Replace the request's model with the provider's id; returns the id (None without a model)."""
    data = options.json_data
    if not isinstance(data, dict) or not isinstance(data.get("model"), str):
        return None
    data["model"] = config.model_id(data["model"])
    return str(data["model"])


#: Bedrock's stream exceptions as the Messages API error types the loop's retry rules know
BEDROCK_ERRORS = {
    "throttlingException": "rate_limit_error",
    "serviceUnavailableException": "overloaded_error",
    "internalServerException": "api_error",
    "modelStreamErrorException": "api_error",
    "modelTimeoutException": "timeout_error",
}


def bedrock_decoder() -> Any:
    """The SDK's event-stream decoder, with exception frames turned into `error` events (so they retry as on the API)."""
    import json

    from anthropic._streaming import ServerSentEvent
    from anthropic.lib.bedrock._stream_decoder import AWSEventStreamDecoder
    from botocore.eventstream import EventStreamBuffer

    class Decoder(AWSEventStreamDecoder):
        def iter_bytes(self, iterator: Any) -> Any:
            buffer = EventStreamBuffer()
            for chunk in iterator:
                buffer.add_data(chunk)
                for event in buffer:
                    if event.headers.get(":message-type") == "exception":
                        kind = str(event.headers.get(":exception-type", ""))
                        try:
                            message = json.loads(event.payload).get("message", kind)
                        except (ValueError, AttributeError):
                            message = kind
                        error = {
                            "type": BEDROCK_ERRORS.get(kind, "invalid_request_error"),
                            "message": f"{kind}: {message}",
                        }
                        yield ServerSentEvent(event="error", data=json.dumps({"type": "error", "error": error}))
                        continue
                    parsed = self._parse_message_from_event(event)
                    if isinstance(parsed, ServerSentEvent):  # SDK 2.x parses frames into events itself
                        yield parsed
                    elif parsed:  # SDK 0.x returns the chunk's JSON text
                        yield ServerSentEvent(data=parsed, event="completion")

    return Decoder()


def bedrock_client(config: ProviderConfig, kwargs: dict[str, Any]) -> Any:
    """An AnthropicBedrock for `config`: SigV4-signed from the AWS credential chain, or unsigned."""
    check_extra(config)
    from anthropic._compat import model_copy
    from anthropic.lib.bedrock._client import AnthropicBedrock

    class BedrockClient(AnthropicBedrock):
        def _prepare_options(self, options: Any) -> Any:
            options = model_copy(options, deep=True)
            _map_model(options, config)
            return super()._prepare_options(options)

        def _prepare_request(self, request: Any) -> None:
            if not config.skip_auth:
                super()._prepare_request(request)

        def _make_sse_decoder(self, *args: Any, **kwargs: Any) -> Any:
            # SDK 2.x passes the request options (its control-plane calls decode plain SSE)
            base = super()._make_sse_decoder(*args, **kwargs)
            return bedrock_decoder() if type(base).__name__ == "AWSEventStreamDecoder" else base

    kwargs = {k: v for k, v in kwargs.items() if k not in ("api_key", "auth_token")}
    return BedrockClient(aws_region=config.region, base_url=config.base_url, **kwargs)


def vertex_client(config: ProviderConfig, kwargs: dict[str, Any]) -> Any:
    """An AnthropicVertex for `config`: a Google application-default bearer token, or unsigned."""
    check_extra(config)
    from anthropic._compat import model_copy
    from anthropic.lib.vertex import _client as vertex

    class VertexClient(vertex.AnthropicVertex):
        def _prepare_options(self, options: Any) -> Any:
            options = model_copy(options, deep=True)
            model = _map_model(options, config)
            region = config.region_for(model) if model else self.region
            prepared = vertex._prepare_options(options, project_id=self.project_id, region=region or self.region)
            if region != self.region and not config.base_url and prepared.url.startswith("/"):
                host = "aiplatform.googleapis.com" if region == "global" else f"{region}-aiplatform.googleapis.com"
                prepared.url = f"https://{host}/v1{prepared.url}"  # a per-model region lives on its own host
            return prepared

        def _prepare_request(self, request: Any) -> None:
            if not config.skip_auth:
                super()._prepare_request(request)

    kwargs = {k: v for k, v in kwargs.items() if k not in ("api_key", "auth_token")}
    return VertexClient(
        region=config.region or "", project_id=config.project_id or "", base_url=config.base_url, **kwargs
    )


def default_profile(options: Any) -> Profile:
    """The provider the environment and the `provider` setting choose, as a profile like the others."""
    config = resolve_provider(options.provider, options.model_ids)
    return Profile(name=config.name, kind=config.name, base_url=config.base_url, api_key_helper=options.api_key_helper)


def _profile_key(profile: Profile, options: Any, kwargs: dict[str, Any]) -> Any:
    """Put `profile`'s key into `kwargs`; the key helper (if any) whose fresh key each request sends."""
    if profile.api_key_env:
        key = os.environ.get(profile.api_key_env)
        if not key:
            raise ProviderError(
                f"Provider `{profile.name}` takes its key from {profile.api_key_env}, which is not set: export it."
            )
        kwargs["api_key"] = key
        return None
    if profile.api_key_helper:
        helper = key_helper(profile.api_key_helper, options.project_dir)
        kwargs["api_key"] = helper.last_key()
        return helper
    kwargs["api_key"] = "no-key-set"  # a local server that takes none
    return None


def build_client(options: Any, kwargs: dict[str, Any], tls_context: Any = None, profile: Profile | None = None) -> Any:
    """The SDK client for `profile` (the default provider's when None): every client is built here.

    `kwargs` are the SDK client's (retries, timeout, placeholder key); `tls_context` a prewarmed one.
    """
    kwargs = dict(kwargs)
    named = profile is not None
    profile = profile or default_profile(options)
    config = resolve_provider(profile.kind, options.model_ids) if profile.kind != "anthropic" else None
    if config is not None and profile.base_url:
        config = dataclasses.replace(config, base_url=profile.base_url)
    headers = {**custom_headers(), **dict(profile.headers)}
    if headers:
        kwargs["default_headers"] = headers
    helper = None
    if named and profile.kind == "anthropic":
        kwargs["base_url"] = profile.base_url
        helper = _profile_key(profile, options, kwargs)
    elif profile.kind == "anthropic" and options.api_key_helper and not env_key_present():
        helper = key_helper(options.api_key_helper, options.project_dir)
        kwargs["api_key"] = helper.last_key()  # each request sends the fresh one (transport.py)
    elif profile.kind == "anthropic" and not env_key_present():
        from .keystore import load_key

        stored = load_key()  # the key /login stored, if any
        if stored:
            kwargs["api_key"] = stored[0]
    client = http_client(tls_verify(tls_context), kwargs["timeout"], helper)
    if client is not None:
        kwargs["http_client"] = client
    if config is not None and config.name == "bedrock":
        return bedrock_client(config, kwargs)
    if config is not None and config.name == "vertex":
        return vertex_client(config, kwargs)
    import anthropic

    built = anthropic.Anthropic(**kwargs)
    if named:
        built.auth_token = None  # the main provider's ANTHROPIC_AUTH_TOKEN is not this endpoint's to see
    return built
