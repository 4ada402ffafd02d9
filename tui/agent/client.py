"""Builds the SDK client: the real API when a key or base URL is set, else the offline model.

The SDK import costs about a second, so it happens here, lazily, off the UI thread.
"""

from __future__ import annotations

import os
import threading
from typing import Any

from .options import AgentOptions


class _TLSPrewarm:
    """A TLS context being built on its own thread (see `prewarm_tls`)."""

    def __init__(self) -> None:
        self.context: Any = None
        self.thread = threading.Thread(target=self._build, name="tls-prewarm", daemon=True)
        self.thread.start()

    def _build(self) -> None:
        try:
            from tui.agent.api.httplib import httpx

            self.context = httpx.create_ssl_context()
        except Exception:  # the client then builds its own context, as without the prewarm
            pass

    def result(self) -> Any:
        self.thread.join(10.0)
        return self.context


_tls_prewarm: _TLSPrewarm | None = None


def credentials_present() -> bool:
    """Whether the environment names an API key, auth token, base URL or cloud provider."""
    from tui.providers.config import provider_chosen

    keys = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL")
    return any(os.environ.get(k) for k in keys) or provider_chosen()


def use_offline(options: AgentOptions) -> bool:
    """The offline model runs with --offline or when nothing points at an API (a profile's model does)."""
    if options.offline:
        return True
    return not profile_model(options) and default_offline(options)


def default_offline(options: AgentOptions) -> bool:
    """Whether plain model names go to the offline model: --offline, or nothing points at an API."""
    from tui.providers.keystore import stored_key_present

    chosen = options.provider not in (None, "", "anthropic") or bool(options.api_key_helper) or stored_key_present()
    return options.offline or not (credentials_present() or chosen)


def profile_model(options: AgentOptions) -> bool:
    """Whether the main model is a provider profile's (`NAME:MODEL`)."""
    if not options.profiles:
        return False
    from tui.providers.profiles import split_model

    return split_model(options.model, options.profiles)[0] is not None


def prewarm_tls() -> None:
    """Build the TLS context on a thread while the SDK imports (`-p` startup).

    Loading the CA bundle is 40-70 ms of C code that releases the GIL, so it runs alongside
    the imports instead of after them. `make_client` uses the result when it is ready.
    """
    global _tls_prewarm
    if _tls_prewarm is None:
        _tls_prewarm = _TLSPrewarm()


def finish_prewarm() -> None:
    """Wait for a TLS prewarm still loading: the interpreter must not tear down under its C code.

    An early exit (a usage error found after `prewarm_tls`) otherwise ended the process while
    the thread was inside OpenSSL, which crashed the teardown (SIGSEGV/SIGABRT).
    """
    if _tls_prewarm is not None:
        _tls_prewarm.result()


def _prewarmed_tls() -> Any:
    """The context `prewarm_tls` built (waiting for it if it is still loading), or None."""
    return _tls_prewarm.result() if _tls_prewarm is not None else None


def make_client(options: AgentOptions) -> Any:
    """An `anthropic.Anthropic` client. Retries are the loop's own (max_retries=0)."""
    import anthropic

    from tui.agent.api.httplib import httpx

    timeout = httpx.Timeout(600.0, connect=5.0, read=options.stream_idle_timeout)
    kwargs: dict[str, Any] = {"max_retries": 0, "timeout": timeout}
    default: Any
    if default_offline(options):
        from .offline import OfflineTransport

        delay = 0.004 if options.offline_delay is None else options.offline_delay
        http_client: Any = httpx.Client(transport=OfflineTransport(options.project_dir, delay=delay), timeout=timeout)
        default = anthropic.Anthropic(
            api_key="offline", base_url="http://offline.invalid", http_client=http_client, max_retries=0
        )
        if not options.profiles or options.offline:
            return default
    from tui.providers.clients import build_client

    if not default_offline(options):
        default_kwargs = dict(kwargs)
        if not (os.environ.get("ANTHROPIC_API_KEY") or os.environ.get("ANTHROPIC_AUTH_TOKEN")):
            # a base URL without a key: a local or proxy server; send a placeholder key
            default_kwargs["api_key"] = "no-key-set"
        default = build_client(options, default_kwargs, _prewarmed_tls())  # the provider, key and TLS/proxy
        if not options.profiles:
            return default
    from tui.providers.router import RoutingClient

    tls = _prewarmed_tls()
    return RoutingClient(default, dict(options.profiles), lambda p: build_client(options, kwargs, tls, profile=p))
