"""Proxies and CA bundles: which are in use, and one sentence when TLS or a proxy fails.

httpx honours HTTPS_PROXY/HTTP_PROXY/ALL_PROXY/NO_PROXY and SSL_CERT_FILE itself; agent-tui
adds REQUESTS_CA_BUNDLE (what Python tools behind a company proxy usually set) and checks
both bundles up front.
"""

from __future__ import annotations

import os
import socket
import ssl
import urllib.request
from typing import Any
from urllib.parse import urlsplit

CA_VARIABLES = ("SSL_CERT_FILE", "REQUESTS_CA_BUNDLE")


class NetworkError(ValueError):
    """A network setting cannot work; the message is one sentence naming it."""


def ca_bundle() -> tuple[str, str] | None:
    """(variable, path) of the CA bundle in use, SSL_CERT_FILE first; None for the default store."""
    for name in CA_VARIABLES:
        if os.environ.get(name):
            return name, os.environ[name]
    return None


def check_ca_bundle() -> None:
    """NetworkError when the CA bundle variable names a file that cannot be read."""
    found = ca_bundle()
    if found and not (os.path.isfile(found[1]) and os.access(found[1], os.R_OK)):
        raise NetworkError(f"{found[0]} names {found[1]}, which is not a readable file: fix or unset {found[0]}.")


def tls_verify(prewarmed: Any) -> Any:
    """What to verify server certificates with: a context for REQUESTS_CA_BUNDLE, else the prewarmed one."""
    found = ca_bundle()
    if found and found[0] == "REQUESTS_CA_BUNDLE":  # httpx reads SSL_CERT_FILE itself, not this one
        try:
            return ssl.create_default_context(cafile=found[1])
        except (OSError, ssl.SSLError) as exc:
            raise NetworkError(f"REQUESTS_CA_BUNDLE ({found[1]}) could not be loaded: {exc}.") from None
    return prewarmed


def proxy_for(url: str) -> str | None:
    """The proxy the environment routes `url` through (NO_PROXY honoured), or None."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if not host or urllib.request.proxy_bypass_environment(host):  # type: ignore[attr-defined]
        return None
    proxies = urllib.request.getproxies_environment()
    return proxies.get(parts.scheme) or proxies.get("all")


def _causes(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in seen:
        seen.append(current)
        current = current.__cause__ or current.__context__
    return seen


def _credential_failure(chain: list[BaseException]) -> str | None:
    """One sentence when the provider's credentials could not be had (no retry mends that)."""
    from .config import ProviderError
    from .credentials import CredentialError

    for cause in chain:
        if isinstance(cause, (ProviderError, CredentialError)):
            return str(cause)
        if type(cause).__name__ == "DefaultCredentialsError":
            return ("Vertex AI found no Google credentials: run `gcloud auth application-default login`, set "
                    "GOOGLE_APPLICATION_CREDENTIALS, or set CLAUDE_CODE_SKIP_VERTEX_AUTH=1 behind a gateway.")
        # SDK 0.x: "could not resolve credentials"; 2.x: "Could not resolve AWS credentials from session"
        if isinstance(cause, RuntimeError) and "could not resolve" in str(cause).lower() and "credentials" in str(cause):
            return ("Bedrock found no AWS credentials: set AWS_PROFILE or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, "
                    "or set CLAUDE_CODE_SKIP_BEDROCK_AUTH=1 behind a gateway.")
    return None


def connection_failure(exc: BaseException) -> str | None:
    """One sentence for a TLS, proxy or credential failure, naming the host or setting to check; else None."""
    try:
        request = getattr(exc, "request", None)
    except RuntimeError:  # an httpx error made without its request
        request = None
    url = str(getattr(request, "url", "") or "")
    host = urlsplit(url).hostname or "the API host"
    chain = _causes(exc)
    credentials = _credential_failure(chain)
    if credentials:
        return credentials
    text = " ".join(str(c) for c in chain)
    if any(isinstance(c, ssl.SSLCertVerificationError) for c in chain) or "CERTIFICATE_VERIFY_FAILED" in text:
        bundle = ca_bundle()
        where = f"the CA bundle in {bundle[0]} ({bundle[1]})" if bundle else "the system CA store"
        return (f"The TLS certificate of {host} could not be verified with {where}: if a proxy or gateway "
                f"re-signs traffic, point SSL_CERT_FILE (or REQUESTS_CA_BUNDLE) at its CA certificate.")
    proxy = proxy_for(url) if url else None
    if proxy and (type(exc).__name__ == "ProxyError" or any(type(c).__name__ in ("ProxyError", "ConnectError") for c in chain)):
        return (f"The proxy {proxy} failed the connection to {host}: check HTTPS_PROXY "
                f"(and NO_PROXY for hosts that must not use it).")
    return None


def connect_failure(exc: BaseException) -> str | None:
    """"cannot connect to http://host:port: connection refused" when no connection was made; else None."""
    chain = _causes(exc)
    names = {type(c).__name__ for c in chain}
    if not names & {"ConnectError", "ConnectTimeout"}:
        return None
    try:
        request = getattr(exc, "request", None)
    except RuntimeError:
        request = None
    parts = urlsplit(str(getattr(request, "url", "") or ""))
    where = f"{parts.scheme}://{parts.netloc}" if parts.netloc else "the API"
    root = chain[-1]
    if isinstance(root, socket.gaierror):
        cause = f"the host name {parts.hostname} could not be resolved" if parts.hostname else "the host name " \
            "could not be resolved"
    elif isinstance(root, ConnectionRefusedError):
        cause = "connection refused"
    elif isinstance(root, TimeoutError) or "ConnectTimeout" in names:
        cause = "the connection timed out"
    elif isinstance(root, OSError) and root.strerror:
        cause = root.strerror[:1].lower() + root.strerror[1:]
    else:
        cause = str(root) or type(root).__name__
    return f"cannot connect to {where}: {cause}"
