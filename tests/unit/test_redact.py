"""Credentials in URLs, every spelling (issue 32): generated proxy and OTLP URLs in the contexts text carries them.

Property-style: every combination of scheme (or none), user, password (with a raw `@`, `:` and other
characters), host, port and query, in every surrounding context, keeps the host and never shows the secret;
and text that only looks like it (e-mail, `git@`, package pins, image digests) stays as it is.
"""

from __future__ import annotations

import itertools
import json

import pytest

from tui.text.redact import MASK, redact
from tui.text.sanitize import one_line, visible

SECRET = "Zx9Secret"
SCHEMES = ["http://", "https://", "HTTP://", "socks5://", "socks5h://", "grpc://", "dns:///", ""]
USERS = ["agent", "first.last", "u-1", "a%40b", "svc_otel"]
PASSWORDS = [SECRET, f"p@{SECRET}", f"{SECRET}@@x", f"a:{SECRET}", f"{SECRET}!$&()*+,;=", f"%2F{SECRET}", ""]
HOSTS = ["proxy.corp.example", "10.0.0.1", "localhost", "[::1]", "collector"]
PORTS = [":3128", ":4317", ""]
CONTEXTS = [
    "{}",
    "HTTPS_PROXY={}",
    "The proxy {} refused the connection (HTTPS_PROXY).",
    "Telemetry could not be sent: the OTLP endpoint {}/v1/traces answered 401",
    "'{}'",
    '"{}"',
    "<{}>",
    "(at {})",
]


def spellings() -> list[str]:
    out = []
    for scheme, user, password, host, port in itertools.product(SCHEMES, USERS, PASSWORDS, HOSTS, PORTS):
        if scheme == "dns:///":
            continue  # a gRPC target with no authority: covered by the query cases
        if not scheme and host == "collector" and not port:
            continue  # `user:pw@collector` alone is not a URL anyone can tell from text
        if not password:
            out.append(f"{scheme}{user}:{SECRET}x@{host}{port}")
        else:
            out.append(f"{scheme}{user}:{password}@{host}{port}")
    return out


@pytest.mark.parametrize("context", CONTEXTS)
def test_user_info_never_shows_in_any_spelling(context: str) -> None:
    for url in spellings():
        text = context.format(url)
        shown = redact(text)
        assert SECRET not in shown, (text, shown)
        assert MASK in shown, text
        host = url.rsplit("@", 1)[1]
        assert host in shown, (text, shown)  # the host stays: it says which proxy or endpoint
        assert redact(shown) == shown  # masking twice changes nothing


KEYS = ["token", "key", "api_key", "apikey", "access_token", "Authorization", "sig", "password", "secret", "TOKEN"]
BASES = [
    "https://otel.example.com:4318/v1/traces",
    "http://127.0.0.1:4318",
    "collector:4317",
    "dns:///collector:4317",
    "grpc://otel.example.com",
]


def test_a_secret_in_a_query_never_shows() -> None:
    for base, key, first in itertools.product(BASES, KEYS, [True, False]):
        query = f"?{key}={SECRET}" if first else f"?service=agent&{key}={SECRET}&x=1"
        for context in CONTEXTS:
            text = context.format(base + query)
            shown = redact(text)
            assert SECRET not in shown, (text, shown)
            assert f"{key}={MASK}" in shown and base in shown
            assert redact(shown) == shown


def test_every_writer_masks_the_same_spellings() -> None:
    text = f"proxy agent:{SECRET}@10.0.0.1:3128 and otel http://c:4318?token={SECRET} and http://u:p@{SECRET}@h.io"
    for shown in (visible(text), one_line(text), json.loads(json.dumps(redact(text)))):
        assert SECRET not in shown and shown.count(MASK) == 3


@pytest.mark.parametrize(
    "text",
    [
        "ssh://git@github.com/owner/repo",
        "git@github.com:owner/repo.git",
        "mail me at first.last@example.com",
        "mailto:first.last@example.com",
        "npm install npm:lodash@4.17.21",
        "docker pull nginx:1.25@sha256:1a2b3c4d5e6f",
        "pip install pkg==1.2 ; python -c 'x = d[\"a\"]'",
        "def f(x: int) -> int:  # @decorator below",
        "see https://example.com/search?q=token&page=2",
        "time 12:30 @ the office",
    ],
)
def test_text_that_only_looks_like_a_credential_stays(text: str) -> None:
    assert redact(text) == text
