"""Suite-wide isolation: no real API, no user settings, no colour surprises."""

from __future__ import annotations

import os
import shutil

import pytest

_SCRUB = (
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_BASE_URL",
    "NO_COLOR",
    "FORCE_COLOR",
    "ANTHROPIC_MODEL",
    "ANTHROPIC_SMALL_FAST_MODEL",
    "ANTHROPIC_CUSTOM_HEADERS",
    "CLAUDE_CODE_USE_BEDROCK",
    "CLAUDE_CODE_USE_VERTEX",
    "CLAUDE_CODE_API_KEY_HELPER_TTL_MS",
)


@pytest.fixture(autouse=True)
def _isolated_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data"))
    monkeypatch.setenv("XDG_STATE_HOME", str(home / "state"))
    for key in _SCRUB:
        monkeypatch.delenv(key, raising=False)
    for key in list(os.environ):
        if key.startswith("TEXTUAL_") and not key.startswith("TEXTUAL_SNAPSHOT"):
            monkeypatch.delenv(key, raising=False)


@pytest.fixture
def sandbox_off() -> object:
    """Bash runs outside the sandbox for this test (the path excluded commands and other systems take)."""
    from tui.config.sandbox_settings import SandboxSettings
    from tui.sandbox import runtime

    previous = runtime.current()
    runtime._current = runtime.SandboxRuntime(SandboxSettings(enabled=False))
    yield runtime._current
    runtime._current.close()
    runtime._current = previous


@pytest.hookimpl(trylast=True)  # after -k/-m deselection: a deselected test starts nothing
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """Start the SDK 2.x run (tests/integration/test_sdk2.py) in the background now and check it last."""
    from tests.integration import test_sdk2

    found = [item for item in items if item.nodeid == test_sdk2.TEST_ID]
    if not found or os.environ.get(test_sdk2.INNER):
        return
    items.remove(found[0])
    items.append(found[0])
    if test_sdk2.background is None:
        test_sdk2.background = test_sdk2.InnerRun().start()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """An early end (-x, Ctrl+C) leaves no SDK 2.x run behind, and no run leaves its folder."""
    from tests.integration import test_sdk2

    if test_sdk2.background is not None:
        test_sdk2.background.stop()
        test_sdk2.background.done.wait(timeout=30)  # its thread reads the log before the folder goes
        shutil.rmtree(test_sdk2.background.workdir, ignore_errors=True)  # anthropic 2.x, ~30 MB
