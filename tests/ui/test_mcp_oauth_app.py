"""In the app, a server that needs a sign-in shows its link at once; opening it connects the server."""

from __future__ import annotations

import re
import subprocess
import sys

import httpx
import pytest

from tests.integration.mcp_helpers import ROOT, free_port, wait_for_port
from tui.mcp.config import McpServerConfig
from tui.ui.app import AgentApp

from .conftest import SIZE, notices, wait_until


async def test_the_sign_in_link_is_shown_while_the_server_waits(
    offline_options, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BROWSER", "true %s")  # a "browser" that opens nothing: the user follows the link
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "tests.mcp_servers.oauth_server", str(port)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port)
        config = McpServerConfig("guarded", "http", url=f"http://127.0.0.1:{port}/mcp")
        app = AgentApp(offline_options(mcp_servers=[config]), permission_grace_s=0)
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: any("guarded needs you to sign in" in n for n in notices(app)))
            toast = next(n for n in notices(app) if "sign in" in n)
            link = re.search(r"http://127\.0\.0\.1:\d+/authorize\?\S+", toast)
            assert link, toast
            async with httpx.AsyncClient(follow_redirects=True) as browser:  # the user opens the link
                assert (await browser.get(link.group(0).rstrip("."))).status_code == 200
            await wait_until(pilot, lambda: app.session.mcp.manager.states["guarded"].status == "connected")
    finally:
        server.kill()
        server.wait(10)
