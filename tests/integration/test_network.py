"""Proxies and CA bundles through `agent-tui -p`: a TLS fake API signed by a CA made here, a CONNECT proxy."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakeapi import FakeAPI
from tests.fakeapi.proxy import ConnectProxy
from tests.fakeapi.script import Reply, Text
from tests.integration.test_providers import new_project, run_p
from tests.ports import refusing_port

pytest.importorskip("cryptography")
from tests.fakeapi.tls import make_ca_and_server_cert, serve_tls


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return new_project(tmp_path, "max_retries = 0\n")


@pytest.fixture
def tls_api(tmp_path: Path):
    ca, cert, key = make_ca_and_server_cert(tmp_path)
    with FakeAPI([Reply([Text("over TLS")])]) as api:
        yield api, serve_tls(api, cert, key), ca


def key_env(base_url: str, **extra: str) -> dict[str, str]:
    return {"ANTHROPIC_BASE_URL": base_url, "ANTHROPIC_API_KEY": "sk-test", **extra}


@pytest.mark.parametrize("variable", ["SSL_CERT_FILE", "REQUESTS_CA_BUNDLE"])
def test_a_custom_ca_bundle_is_used(project, tls_api, variable):
    api, url, ca = tls_api
    proc = run_p(["hi"], project, key_env(url, **{variable: str(ca)}))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "over TLS" and len(api.message_requests) == 1


def test_an_untrusted_certificate_is_one_sentence_naming_host_and_setting(project, tls_api):
    api, url, _ = tls_api
    proc = run_p(["hi"], project, key_env(url))
    assert proc.returncode != 0
    assert "TLS certificate of 127.0.0.1 could not be verified" in proc.stderr and "SSL_CERT_FILE" in proc.stderr
    assert "Traceback" not in proc.stderr and api.message_requests == []


def test_a_missing_ca_bundle_file_is_named_before_the_start(project, tmp_path):
    proc = run_p(["hi"], project, key_env("https://127.0.0.1:9", REQUESTS_CA_BUNDLE=str(tmp_path / "nope.pem")))
    assert proc.returncode == 2
    assert "REQUESTS_CA_BUNDLE names" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_https_proxy_tunnels_the_request_and_no_proxy_bypasses_it(project, tls_api):
    api, url, ca = tls_api
    with ConnectProxy() as proxy:
        proc = run_p(["hi"], project, key_env(url, SSL_CERT_FILE=str(ca), HTTPS_PROXY=proxy.url))
        assert proc.returncode == 0, proc.stderr
        assert proxy.connects == [f"127.0.0.1:{api.port}"]
        api._script.append(Reply([Text("direct")]))
        proc = run_p(["hi"], project, key_env(url, SSL_CERT_FILE=str(ca), HTTPS_PROXY=proxy.url, NO_PROXY="127.0.0.1"))
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.strip() == "direct" and len(proxy.connects) == 1


def test_an_unreachable_proxy_is_one_sentence_naming_it(project, tls_api):
    _api, url, ca = tls_api
    dead = f"http://127.0.0.1:{refusing_port()}"
    proc = run_p(["hi"], project, key_env(url, SSL_CERT_FILE=str(ca), HTTPS_PROXY=dead))
    assert proc.returncode != 0
    assert f"The proxy {dead}" in proc.stderr and "127.0.0.1" in proc.stderr and "HTTPS_PROXY" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_refused_connection_names_the_url_and_the_cause_after_the_retries(project):
    dead = f"http://127.0.0.1:{refusing_port()}"
    proc = run_p(
        ["hi", "--settings", '{"max_retries": 1}'],
        project,
        {"ANTHROPIC_API_KEY": "sk-test", "ANTHROPIC_BASE_URL": dead},
    )
    assert proc.returncode == 1
    assert "cannot connect, retrying in" in proc.stderr and "attempt 2/2" in proc.stderr
    assert proc.stderr.strip().endswith(f"Gave up after 2 attempts: cannot connect to {dead}: connection refused.")
    assert "Traceback" not in proc.stderr
