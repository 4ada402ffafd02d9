"""The SDK client: offline vs API, and the TLS context prewarmed for `-p`."""

from __future__ import annotations

import ssl
from pathlib import Path

import pytest

from tui.agent import client as client_module
from tui.agent.options import AgentOptions


@pytest.fixture
def fresh_tls(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(client_module, "_tls_prewarm", None)


def _pool_context(client: object) -> ssl.SSLContext:
    return client._client._transport._pool._ssl_context  # type: ignore[attr-defined]


def test_prewarmed_tls_context_is_the_one_the_client_uses(
    fresh_tls: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")
    client_module.prewarm_tls()
    prewarm = client_module._tls_prewarm
    assert prewarm is not None
    context = prewarm.result()
    assert isinstance(context, ssl.SSLContext)
    assert context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname  # verification stays on
    assert context.cert_store_stats()["x509_ca"] > 0  # the CA bundle is loaded
    made = client_module.make_client(AgentOptions(project_dir=tmp_path))
    assert _pool_context(made) is context
    assert made.max_retries == 0


def test_without_prewarm_the_sdk_builds_its_own_context(
    fresh_tls: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    made = client_module.make_client(AgentOptions(project_dir=tmp_path))
    assert isinstance(_pool_context(made), ssl.SSLContext)
    assert client_module._tls_prewarm is None


def test_offline_client_needs_no_tls(fresh_tls: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for key in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(key, raising=False)
    made = client_module.make_client(AgentOptions(project_dir=tmp_path))
    assert str(made.base_url).startswith("http://offline.invalid")
