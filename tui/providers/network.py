"""Proxies and CA bundles: which are in use, and one sentence when TLS or a proxy fails.

httpx honours HTTPS_PROXY/HTTP_PROXY/ALL_PROXY/NO_PROXY and SSL_CERT_FILE itself; agent-tui
adds REQUESTS_CA_BUNDLE (what Python tools behind a company proxy usually set) and checks
both bundles up front.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import ssl
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


#: the proxy schemes httpx can use; socks5 needs the socksio package
PROXY_SCHEMES = ("http", "https", "socks5", "socks5h")


def proxy_variables() -> list[tuple[str, str]]:
    """(variable, value) of each proxy setting httpx will use (`https_proxy` over `HTTPS_PROXY`, as urllib reads them)."""
    if not any(name[-6:].lower() == "_proxy" for name in os.environ):
        return []  # none set (urllib's own test): spare the import of urllib.request (~9 ms, before the app's frame)
    import urllib.request

    found = []
    for scheme, value in urllib.request.getproxies_environment().items():
        if scheme not in ("http", "https", "all") or not value:
            continue
        name = next(
            (n for n in (f"{scheme}_proxy", f"{scheme.upper()}_PROXY") if os.environ.get(n) == value),
            f"{scheme.upper()}_PROXY",
        )
        found.append((name, value))
    return found


def check_proxies() -> None:
    """NetworkError naming the variable when a proxy URL does not parse or has a scheme that cannot be used."""
    from tui.text.redact import redact

    for name, value in proxy_variables():
        url = value if "://" in value else f"http://{value}"  # httpx reads a bare host:port as http
        shown = redact(url)
        try:
            parts = urlsplit(url)
            parts.port  # noqa: B018 - raises ValueError for a port that is not a number
        except ValueError as exc:
            raise NetworkError(f"{name} is not a proxy URL ({shown}: {exc}); use http://host:port.") from None
        scheme = parts.scheme.lower()
        if scheme not in PROXY_SCHEMES:
            raise NetworkError(
                f"{name} uses the {scheme}:// scheme ({shown}), which cannot carry requests: "
                "use http://, https:// or socks5://."
            )
        if not parts.hostname:
            raise NetworkError(f"{name} names no proxy host ({shown}); use http://host:port.")
        if scheme.startswith("socks") and importlib.util.find_spec("socksio") is None:
            raise NetworkError(
                f"{name} is a SOCKS proxy ({shown}), which needs the socksio package: "
                "pip install 'httpx[socks]' (or socksio) in agent-tui's environment."
            )


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
    found = proxy_setting_for(url)
    return found[1] if found else None


def proxy_setting_for(url: str) -> tuple[str, str] | None:
    """(variable, proxy URL) the environment routes `url` through (NO_PROXY honoured), or None."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    settings = {name.split("_")[0].lower(): (name, value) for name, value in proxy_variables()}
    if not host or not settings:
        return None
    import urllib.request

    if urllib.request.proxy_bypass_environment(host):  # type: ignore[attr-defined]
        return None
    return settings.get(parts.scheme) or settings.get("all")


def _causes(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in seen:
        seen.append(current)
        current = current.__cause__ or current.__context__
    return seen


NO_AWS_CREDENTIALS = (
    "Bedrock found no AWS credentials: set AWS_PROFILE or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, "
    "or set CLAUDE_CODE_SKIP_BEDROCK_AUTH=1 behind a gateway."
)
#: botocore's errors about where credentials come from (matched by name: botocore is imported only for Bedrock)
AWS_CREDENTIAL_ERRORS = frozenset(
    {
        "NoCredentialsError",
        "PartialCredentialsError",
        "CredentialRetrievalError",
        "InvalidConfigError",
        "SSOTokenLoadError",
        "UnauthorizedSSOTokenError",
        "TokenRetrievalError",
        "SSOError",
        "InvalidProfileError",
        "RefreshWithMFAUnsupportedError",
        "MetadataRetrievalError",
        "ConfigParseError",
        "ConfigNotFound",
    }
)


def _aws_failure(cause: BaseException) -> str | None:
    """One sentence for botocore's credential and profile errors, naming the setting to fix."""
    name = type(cause).__name__
    if not type(cause).__module__.startswith("botocore"):
        return None
    if name == "ProfileNotFound":
        profile = getattr(cause, "kwargs", {}).get("profile") or os.environ.get("AWS_PROFILE", "")
        return (
            f"Bedrock could not use the AWS profile {profile!r} (AWS_PROFILE): it is not in the AWS config files "
            "(~/.aws/config, ~/.aws/credentials, or AWS_CONFIG_FILE); fix AWS_PROFILE or add the profile."
        )
    if name == "NoCredentialsError":
        return NO_AWS_CREDENTIALS
    if name in AWS_CREDENTIAL_ERRORS:
        return (
            f"Bedrock could not get AWS credentials ({cause}); check AWS_PROFILE and the AWS config files "
            "(run `aws sso login` for an SSO profile), or set CLAUDE_CODE_SKIP_BEDROCK_AUTH=1 behind a gateway."
        )
    return None


def credential_failure(exc: BaseException) -> str | None:
    """One sentence when the provider's credentials could not be had (no retry mends that), else None."""
    from .config import ProviderError
    from .credentials import CredentialError

    for cause in _causes(exc):
        if isinstance(cause, (ProviderError, CredentialError)):
            return str(cause)
        if type(cause).__name__ == "DefaultCredentialsError":
            return (
                "Vertex AI found no Google credentials: run `gcloud auth application-default login`, set "
                "GOOGLE_APPLICATION_CREDENTIALS, or set CLAUDE_CODE_SKIP_VERTEX_AUTH=1 behind a gateway."
            )
        if sentence := _aws_failure(cause):
            return sentence
        # SDK 0.x: "could not resolve credentials"; 2.x: "Could not resolve AWS credentials from session"
        if (
            isinstance(cause, RuntimeError)
            and "could not resolve" in str(cause).lower()
            and "credentials" in str(cause)
        ):
            return NO_AWS_CREDENTIALS
    return None


def connection_failure(exc: BaseException) -> str | None:
    """One sentence for a TLS or proxy failure, naming the host or setting to check; else None."""
    try:
        request = getattr(exc, "request", None)
    except RuntimeError:  # an httpx error made without its request
        request = None
    url = str(getattr(request, "url", "") or "")
    host = urlsplit(url).hostname or "the API host"
    chain = _causes(exc)
    text = " ".join(str(c) for c in chain)
    if any(isinstance(c, ssl.SSLCertVerificationError) for c in chain) or "CERTIFICATE_VERIFY_FAILED" in text:
        bundle = ca_bundle()
        where = f"the CA bundle in {bundle[0]} ({bundle[1]})" if bundle else "the system CA store"
        return (
            f"The TLS certificate of {host} could not be verified with {where}: if a proxy or gateway "
            f"re-signs traffic, point SSL_CERT_FILE (or REQUESTS_CA_BUNDLE) at its CA certificate."
        )
    setting = proxy_setting_for(url) if url else None
    if setting and (
        type(exc).__name__ == "ProxyError" or any(type(c).__name__ in ("ProxyError", "ConnectError") for c in chain)
    ):
        return (
            f"The proxy {setting[1]} failed the connection to {host}: check {setting[0]} "
            f"(and NO_PROXY for hosts that must not use it)."
        )
    return None


def connect_failure(exc: BaseException) -> str | None:
    """ "cannot connect to http://host:port: connection refused" when no connection was made; else None."""
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
        cause = (
            f"the host name {parts.hostname} could not be resolved"
            if parts.hostname
            else "the host name could not be resolved"
        )
    elif isinstance(root, ConnectionRefusedError):
        cause = "connection refused"
    elif isinstance(root, TimeoutError) or "ConnectTimeout" in names:
        cause = "the connection timed out"
    elif isinstance(root, OSError) and root.strerror:
        cause = root.strerror[:1].lower() + root.strerror[1:]
    else:
        cause = str(root) or type(root).__name__
    return f"cannot connect to {where}: {cause}"
