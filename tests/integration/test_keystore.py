"""The key /login stores, used by `agent-tui -p`: the system keyring when there is one, else a 0600 file."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from tests.fakeapi import FakeAPI
from tests.fakeapi.script import Reply, Text
from tests.integration.test_providers import new_project, run_p
from tui.providers.keystore import KeyStoreError, credentials_file, delete_key, load_key, store_key

pytest.importorskip("keyring")
from tests.fakeapi.keyring_backend import use_backend

REPO = str(Path(__file__).resolve().parents[2])


@pytest.fixture
def no_keyring(monkeypatch):
    yield from use_backend(monkeypatch, {"PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"})


@pytest.fixture
def test_keyring(monkeypatch, tmp_path):
    yield from use_backend(
        monkeypatch,
        {
            "PYTHON_KEYRING_BACKEND": "tests.fakeapi.keyring_backend.FileKeyring",
            "AGENT_TUI_TEST_KEYRING": str(tmp_path / "keyring.json"),
            "PYTHONPATH": REPO,
        },
    )


def test_without_a_keyring_the_key_is_a_private_file_and_p_uses_it(tmp_path, no_keyring):
    stored = store_key("sk-ant-from-login")
    assert stored.warning and "No system keyring" in stored.warning
    assert stat.S_IMODE(credentials_file().stat().st_mode) == 0o600
    with FakeAPI([Reply([Text("logged in")])]) as api:
        proc = run_p(["hi"], new_project(tmp_path), {"ANTHROPIC_BASE_URL": api.base_url, **no_keyring})
        [request] = api.message_requests
    assert proc.returncode == 0, proc.stderr
    assert request.api_key == "sk-ant-from-login"
    assert delete_key() and load_key() is None and not credentials_file().exists()


def test_with_a_keyring_the_file_holds_no_key_and_p_uses_the_keyring(tmp_path, test_keyring):
    stored = store_key("sk-ant-in-keyring")
    assert stored.where == "the system keyring" and stored.warning is None
    assert "sk-ant-in-keyring" not in credentials_file().read_text()
    assert json.loads(Path(test_keyring["AGENT_TUI_TEST_KEYRING"]).read_text()) == {
        "agent-tui/anthropic-api-key": "sk-ant-in-keyring"
    }
    with FakeAPI([Reply([Text("from the keyring")])]) as api:
        proc = run_p(["hi"], new_project(tmp_path), {"ANTHROPIC_BASE_URL": api.base_url, **test_keyring})
        [request] = api.message_requests
    assert proc.returncode == 0, proc.stderr
    assert request.api_key == "sk-ant-in-keyring"
    assert delete_key() and json.loads(Path(test_keyring["AGENT_TUI_TEST_KEYRING"]).read_text()) == {}


def test_an_environment_key_wins_over_the_stored_one(tmp_path, no_keyring):
    store_key("sk-ant-stored")
    with FakeAPI([Reply([Text("env")])]) as api:
        run_p(
            ["hi"],
            new_project(tmp_path),
            {"ANTHROPIC_BASE_URL": api.base_url, "ANTHROPIC_API_KEY": "sk-env", **no_keyring},
        )
        [request] = api.message_requests
    assert request.api_key == "sk-env"


def test_a_key_with_spaces_is_refused(no_keyring):
    with pytest.raises(KeyStoreError, match="one word"):
        store_key("not a key")
    assert not credentials_file().exists()
