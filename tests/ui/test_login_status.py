"""`/status`, `/login` and `/logout` in the app, driven with Pilot."""

from __future__ import annotations

import json
import stat

import pytest

from tests.fakeapi.keyring_backend import use_backend
from tui.providers.keystore import credentials_file
from tui.ui.app import AgentApp
from tui.ui.screens.login_screen import LoginScreen

from .conftest import SIZE, notices, type_prompt, wait_until
from .fake_engine import FakeSession
from .test_app_pilot import markers


async def test_status_names_provider_url_proxy_bundle_and_credential_source_never_the_key(
    offline_options, monkeypatch, tmp_path
) -> None:
    bundle = tmp_path / "corp-ca.pem"
    bundle.write_text("")
    for name, value in {
        "CLAUDE_CODE_USE_BEDROCK": "1",
        "AWS_REGION": "eu-west-1",
        "AWS_ACCESS_KEY_ID": "AKIDSECRET",
        "HTTPS_PROXY": "http://proxy.example:3128",
        "SSL_CERT_FILE": str(bundle),
    }.items():
        monkeypatch.setenv(name, value)
    session = FakeSession(offline_options(offline=False, model="claude-sonnet-5-5"), offline=False)
    app = AgentApp(session.options, session=session, permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "/status")
        await wait_until(pilot, lambda: any(m.startswith("Not on bedrock") for m in markers(app)))
        shown = markers(app)
    assert "Provider: bedrock (chosen by CLAUDE_CODE_USE_BEDROCK)" in shown
    assert "Model: claude-sonnet-5-5 (sent as eu.anthropic.claude-sonnet-5-5-v1:0)" in shown
    assert "Base URL: https://bedrock-runtime.eu-west-1.amazonaws.com" in shown
    assert "Credential: AWS_ACCESS_KEY_ID (environment), SigV4-signed" in shown
    assert "Proxy: http://proxy.example:3128" in shown and f"CA bundle: {bundle} (SSL_CERT_FILE)" in shown
    assert not any("AKIDSECRET" in m for m in shown)


async def test_status_of_the_plain_api_names_the_key_variable_only(offline_options, monkeypatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-very-secret")
    monkeypatch.setenv("NO_PROXY", "api.anthropic.com")
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.example:3128")
    session = FakeSession(offline_options(offline=False), offline=False)
    app = AgentApp(session.options, session=session, permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "/status")
        await wait_until(pilot, lambda: any(m.startswith("CA bundle") for m in markers(app)))
        shown = markers(app)
    assert "Credential: ANTHROPIC_API_KEY (environment)" in shown and "Proxy: none" in shown
    assert not any("sk-ant-very-secret" in m for m in shown)


@pytest.fixture
def no_keyring(monkeypatch):
    """A machine without a system keyring."""
    yield from use_backend(monkeypatch, {"PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"})


async def test_login_stores_the_key_in_a_private_file_without_a_keyring_and_logout_removes_it(
    fake_session, no_keyring
) -> None:
    app = AgentApp(fake_session.options, session=fake_session, permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "/login")
        await wait_until(pilot, lambda: isinstance(app.screen, LoginScreen))
        await pilot.press(*"sk-ant-test-123", "enter")
        await wait_until(pilot, lambda: credentials_file().is_file())
        path = credentials_file()
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert json.loads(path.read_text()) == {"store": "file", "api_key": "sk-ant-test-123"}
        await wait_until(pilot, lambda: any("No system keyring" in n for n in notices(app)))
        assert not any("sk-ant-test-123" in m for m in markers(app))
        await type_prompt(pilot, "/logout")
        await wait_until(pilot, lambda: not credentials_file().exists())
        assert not fake_session.submitted  # neither command reached the engine
