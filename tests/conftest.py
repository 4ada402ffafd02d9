"""Suite-wide isolation: no real API, no user settings, no colour surprises."""

from __future__ import annotations

import os
from typing import Any

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


_REAL_HOME = os.path.expanduser("~")
#: toolchains installed under the real home that tests run (pyenv's Pythons for Toad, rustup's compilers):
#: found through their own variables once HOME is a test's own folder
_TOOL_HOMES = {"PYENV_ROOT": ".pyenv", "RUSTUP_HOME": ".rustup", "CARGO_HOME": ".cargo"}


@pytest.fixture(autouse=True)
def _isolated_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test its own HOME and XDG folders (no user's ~/.claude, ~/.agent-tui or settings; nothing shared)."""
    home = tmp_path_factory.mktemp("home")
    for key, folder in _TOOL_HOMES.items():
        if key not in os.environ and os.path.isdir(os.path.join(_REAL_HOME, folder)):
            monkeypatch.setenv(key, os.path.join(_REAL_HOME, folder))
    monkeypatch.setenv("HOME", str(home))
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


#: the files that take longest (the soak, SDK installs, Toad, tmux, long -p runs; measured with --durations under
#: -n 4): they start first, so none of them is left running alone at the end of a parallel run
SLOW_FIRST = (
    "tests/ui/test_soak.py",
    "tests/integration/test_agent_sdk.py",
    "tests/integration/test_acp_toad.py",
    "tests/ui/test_rewind_tmux.py",
    "tests/ui/test_long_history.py",
    "tests/integration/test_offline_requests.py",
    "tests/integration/test_acp.py",
    "tests/ui/test_dialog_tmux.py",
    "tests/ui/test_app_pilot.py",
)


def _file_order(items: list[pytest.Item]) -> None:
    """Order the files as the workers should take them (addopts: --dist loadfile --no-loadscope-reorder): the slow
    ones first, then by their number of tests, largest first; the order within a file is kept."""
    counts: dict[str, int] = {}
    for item in items:
        path = item.nodeid.split("::", 1)[0]
        counts[path] = counts.get(path, 0) + 1

    def key(item: pytest.Item) -> tuple[int, int]:
        path = item.nodeid.split("::", 1)[0]
        slow = SLOW_FIRST.index(path) if path in SLOW_FIRST else len(SLOW_FIRST)
        return slow, -counts[path]

    items.sort(key=key)  # stable: a file's tests stay together and in their order


@pytest.hookimpl(trylast=True)  # after -k/-m deselection: a deselected test starts nothing
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """Order the files for the workers; move the SDK 2.x tests (tests/integration/test_sdk2.py) to the very end,
    and in a serial run start their runs now.

    Under xdist every worker collects (and orders alike, as xdist requires), and the controller starts the
    SDK 2.x runs once (`pytest_xdist_node_collection_finished` below).
    """
    from tests.integration import test_sdk2

    _file_order(items)
    found = [item for item in items if item.nodeid.startswith(test_sdk2.TEST_NAME)]
    if not found or os.environ.get(test_sdk2.INNER):
        return
    for item in found:
        items.remove(item)
        items.append(item)
    if not hasattr(config, "workerinput"):
        test_sdk2.session_background().start(test_sdk2.wanted([item.nodeid for item in found]))


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist controller: each worker learns the folder where the SDK 2.x runs write their results."""
    from tests.integration import test_sdk2

    if not os.environ.get(test_sdk2.INNER):
        node.workerinput[test_sdk2.WORKER_KEY] = str(test_sdk2.session_background().results)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node: Any, ids: list[str]) -> None:
    """xdist controller: start the SDK 2.x runs the workers collected, once for the session."""
    from tests.integration import test_sdk2

    if not os.environ.get(test_sdk2.INNER):
        test_sdk2.session_background().start(test_sdk2.wanted(ids))


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """An early end (-x, Ctrl+C) leaves no SDK 2.x run behind, and no run leaves its folder."""
    from tests.integration import test_sdk2

    if test_sdk2.background is not None and not hasattr(session.config, "workerinput"):
        test_sdk2.background.close()
