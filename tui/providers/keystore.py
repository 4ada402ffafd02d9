"""The key `/login` stores: in the system keyring (PyPI `keyring`), else a 0600 file with a warning.

`credentials.json` in the user config folder always says where the key is (never the key
itself when the keyring holds it), so start-up can tell a key exists without importing keyring.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tui.config.bounded_read import load_json_file
from tui.config.paths import user_config_dir
from tui.system.private_files import open_private

SERVICE = "agent-tui"
ACCOUNT = "anthropic-api-key"


@dataclass(frozen=True)
class Stored:
    """Where a key went (or came from) and a warning to show, if any."""

    where: str
    warning: str | None = None


class KeyStoreError(ValueError):
    """The key could not be stored, read or removed; one sentence."""


def credentials_file() -> Path:
    return user_config_dir() / "credentials.json"


def stored_key_present() -> bool:
    """Whether /login stored a key (a stat, no keyring import)."""
    return credentials_file().is_file()


def _keyring() -> Any:
    """The keyring module when a real backend is available, else None."""
    try:
        import keyring
        from keyring.backends import fail
    except ImportError:
        return None
    try:
        backend = keyring.get_keyring()
    except Exception:  # a broken keyring configuration counts as none
        return None
    if isinstance(backend, fail.Keyring) or getattr(backend, "priority", 1) <= 0:
        return None
    return keyring


def _write_private(path: Path, data: dict[str, Any]) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open_private(tmp, "w", encoding="utf-8") as handle:  # 0600 in a 0700 folder
        json.dump(data, handle)
    os.replace(tmp, path)


def store_key(key: str) -> Stored:
    """Keep `key` for later starts: the keyring when there is one, else a 0600 file (with a warning)."""
    key = key.strip()
    if not key or any(c.isspace() for c in key):
        raise KeyStoreError("An API key is one word without spaces; nothing was stored.")
    path = credentials_file()
    ring = _keyring()
    try:
        if ring is not None:
            try:
                ring.set_password(SERVICE, ACCOUNT, key)
            except Exception as exc:
                raise KeyStoreError(f"The system keyring refused the key: {exc}.") from None
            _write_private(path, {"store": "keyring", "service": SERVICE})
            return Stored("the system keyring")
        _write_private(path, {"store": "file", "api_key": key})
    except OSError as exc:
        raise KeyStoreError(f"{path} could not be written: {exc.strerror or exc}.") from None
    return Stored(f"{path}", f"No system keyring is available, so the key is in {path} (readable only by you).")


def load_key() -> tuple[str, str] | None:
    """(key, where it came from) for the key /login stored, or None."""
    path = credentials_file()
    if not path.is_file():
        return None
    try:
        data = load_json_file(path)
    except (OSError, ValueError) as exc:
        raise KeyStoreError(f"{path} cannot be read ({exc}): run /logout and /login again.") from None
    if not isinstance(data, dict):
        return None
    if data.get("store") == "keyring":
        ring = _keyring()
        key = ring.get_password(SERVICE, ACCOUNT) if ring is not None else None
        return (key, "the system keyring (/login)") if key else None
    key = data.get("api_key")
    return (key, f"{path} (/login)") if isinstance(key, str) and key else None


def delete_key() -> bool:
    """Forget the stored key (keyring entry and file); True when there was one."""
    path = credentials_file()
    if not path.is_file():
        return False
    ring = _keyring()
    if ring is not None:
        try:
            ring.delete_password(SERVICE, ACCOUNT)
        except Exception:  # not there (stored as a file before): nothing to remove
            pass
    try:
        path.unlink()
    except OSError as exc:
        raise KeyStoreError(f"{path} could not be removed: {exc.strerror or exc}.") from None
    return True
