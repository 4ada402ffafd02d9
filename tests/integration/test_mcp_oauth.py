"""OAuth against a local authorization server built from the SDK's server auth parts, all on loopback."""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.mcp_helpers import ROOT, free_port, wait_for_port
from tui.mcp.cli import main as mcp_main
from tui.mcp.config import McpServerConfig
from tui.mcp.manager import McpManager
from tui.mcp.oauth import token_path


@pytest.fixture(scope="module")
def guarded() -> Iterator[str]:
    """The OAuth-protected MCP server's URL (one server for the module)."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.mcp_servers.oauth_server", str(port)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.kill()
        proc.wait(10)


@pytest.fixture
def browser(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """$BROWSER: a script that follows the sign-in link's redirects; returns the log of what it visited."""
    log = tmp_path / "visited.log"
    monkeypatch.setenv("BROWSER", f"{sys.executable} {ROOT / 'tests/mcp_servers/follow_redirects.py'} %s")
    monkeypatch.setenv("FOLLOW_LOG", str(log))
    return log


def test_login_signs_in_through_the_browser_and_list_uses_the_stored_tokens(
    guarded: str, browser: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    assert mcp_main(["add", "--transport", "http", "guarded", guarded], project) == 0
    assert mcp_main(["list"], project) == 0
    assert (
        "guarded: " + guarded + " (HTTP) - ⚠ Needs authentication (run `agent-tui mcp login guarded`)"
        in capsys.readouterr().out
    )
    assert not browser.exists()  # a health check never opens a browser

    assert mcp_main(["login", "guarded"], project) == 0
    out, err = capsys.readouterr()
    assert out == "Signed in to guarded; the tokens are kept for next time.\n"
    assert "guarded needs you to sign in: a browser was opened at http://127.0.0.1:" in err
    visited = browser.read_text()
    assert "/authorize?" in visited and "code_challenge_method=S256" in visited
    assert "200 http://127.0.0.1:" in visited and "/callback?code=" in visited

    config = McpServerConfig("guarded", "http", url=guarded)
    stored = token_path(config)
    assert stat.S_IMODE(stored.stat().st_mode) == 0o600 and stat.S_IMODE(stored.parent.stat().st_mode) == 0o700
    assert json.loads(stored.read_text())["tokens"]["access_token"]

    assert mcp_main(["list"], project) == 0
    assert f"guarded: {guarded} (HTTP) - ✔ Connected" in capsys.readouterr().out
    assert mcp_main(["logout", "guarded"], project) == 0 and not stored.exists()


def test_the_session_runtime_signs_in_and_calls_a_guarded_tool(guarded: str, browser: Path, tmp_path: Path) -> None:
    config = McpServerConfig("guarded", "http", url=guarded)
    manager = McpManager([config], project_dir=tmp_path, log_dir=tmp_path / "logs")
    try:
        manager.start()
        manager.wait(timeout=60)
        state = manager.states["guarded"]
        assert state.status == "connected", state.error
        assert any(
            w.startswith("guarded needs you to sign in: a browser was opened at http://127.0.0.1:")
            for w in state.warnings
        )
        assert [t["name"] for t in state.tools] == ["whoami"]
        result = manager.call(manager.connection("guarded").call_tool("whoami", {}))
        assert "a signed-in agent-tui" in json.dumps(result)
    finally:
        manager.close()
    assert token_path(config).exists()
