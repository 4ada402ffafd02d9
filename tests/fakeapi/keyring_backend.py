"""A keyring backend for tests: a JSON file named by AGENT_TUI_TEST_KEYRING (select it with PYTHON_KEYRING_BACKEND)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from keyring.backend import KeyringBackend
from keyring.errors import PasswordDeleteError


class FileKeyring(KeyringBackend):
    """Stores passwords in one JSON file, like a system keyring would in its own store."""

    priority = 1  # type: ignore[assignment]

    def _path(self) -> Path:
        return Path(os.environ["AGENT_TUI_TEST_KEYRING"])

    def _load(self) -> dict[str, str]:
        path = self._path()
        return json.loads(path.read_text()) if path.exists() else {}

    def get_password(self, service: str, username: str) -> str | None:
        return self._load().get(f"{service}/{username}")

    def set_password(self, service: str, username: str, password: str) -> None:
        data = self._load()
        data[f"{service}/{username}"] = password
        self._path().write_text(json.dumps(data))

    def delete_password(self, service: str, username: str) -> None:
        data = self._load()
        if data.pop(f"{service}/{username}", None) is None:
            raise PasswordDeleteError("not stored")
        self._path().write_text(json.dumps(data))


def use_backend(monkeypatch: pytest.MonkeyPatch, env: dict[str, str]) -> Iterator[dict[str, str]]:
    """Select a keyring backend through the environment, in this process and the -p subprocesses."""
    import keyring.core

    for name, value in env.items():
        monkeypatch.setenv(name, value)
    keyring.core.init_backend()  # keyring picks its backend once per process
    yield env
    monkeypatch.undo()
    keyring.core.init_backend()
