"""The app with a real MCP server: background connection, the dialog's server answer, the panel, /mcp, prompts."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.attacks import stray_controls
from tests.fakeapi import FakeAPI, reply, text, tool_use
from tests.integration.mcp_helpers import kitchen, raw
from tui.agent.options import AgentOptions
from tui.agent.session import AgentSession
from tui.config.paths import local_settings_file
from tui.ui.app import AgentApp
from tui.ui.screens.permission_dialog import PermissionDialog

from .conftest import SIZE, notices, wait_for_dialog, wait_until
from .test_terminal_attacks_screen import screen_output


@pytest.fixture
def mcp_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    project = tmp_path / "proj"
    project.mkdir()
    script = [
        reply(tool_use("mcp__kitchen__slow", {"seconds": 0.6}), stop_reason="tool_use"),
        reply(text("Counted."), stop_reason="end_turn"),
        reply(tool_use("mcp__kitchen__echo", {"text": "again"}), stop_reason="tool_use"),
        reply(text("Reviewed."), stop_reason="end_turn"),
    ]
    with FakeAPI(script) as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
        options = AgentOptions(
            project_dir=project,
            interactive=True,
            transcript=False,
            sessions_dir=tmp_path / "sessions",
            mcp_servers=[kitchen(), raw()],
        )
        yield AgentApp(options, session=AgentSession(options), permission_grace_s=0), api, project


async def test_mcp_in_the_app(mcp_app) -> None:
    app, api, project = mcp_app
    async with app.run_test(size=SIZE) as pilot:
        runtime = app.session.mcp
        await wait_until(pilot, lambda: runtime.started, timeout=30)  # started after the first frame
        await app.submit_prompt("count slowly with kitchen")  # names the server: the turn waits for it
        dialog = await wait_for_dialog(pilot, PermissionDialog, timeout=60)
        assert [key for key, _ in dialog.choices][-1] == "server" and "kitchen" in dialog.choices[-1][1]
        await pilot.press("5")
        records = lambda: [t for b in app.tool_panel.batches for t in b.tools]  # noqa: E731
        await wait_until(pilot, lambda: any("6/6 · step 6" in t.tail_lines() for t in records()), timeout=30)
        await wait_until(pilot, lambda: not app.controller.busy, timeout=60)
        assert "mcp__kitchen" in local_settings_file(project).read_text()  # "every tool of this server" saved
        labels = [t.display_label for t in records()]
        assert any(label.startswith("kitchen › slow") for label in labels), labels
        first = api.message_requests[0].body
        assert "mcp__kitchen__echo" in [t["name"] for t in first["tools"]]

        names = [c.title for c in app.get_system_commands(app.screen)]
        assert "/mcp" in names and "/mcp__kitchen__review" in names
        await app.submit_prompt("/mcp__kitchen__review the parser")
        await wait_until(pilot, lambda: len(api.message_requests) >= 4 and not app.controller.busy, timeout=60)
        prompt = api.message_requests[2].body["messages"][-1]["content"][0]["text"]
        assert prompt == "Please review the parser carefully."  # the server's prompt became the turn
        results = api.message_requests[3].body["messages"][-1]["content"]
        assert results[0]["content"] == "echo: again"  # the saved server rule allowed it without asking

        await app.submit_prompt("/mcp")
        await wait_until(pilot, lambda: getattr(app.screen, "_ready", False))
        table = app.screen.query_one("#mcp-servers")
        assert table.row_count == 2 and "connected" in str(table.get_row_at(0)[3])
        await pilot.press("down")  # raw: its tool's description is a terminal attack, drawn visibly
        await wait_until(pilot, lambda: "PWNED-TITLE" in screen_output(app))
        assert stray_controls(screen_output(app)) == [] and "␛]0;PWNED-TITLE␇" in screen_output(app)
        await pilot.press("escape")

        await pilot.press("f2")  # the inspector's MCP view: `m` opens every JSON-RPC message, by server
        await pilot.pause()
        app.query_one("#inspector-calls").focus()
        await pilot.press("m")
        await wait_until(pilot, lambda: getattr(app.screen, "_ready", False))
        assert app.screen.query_one("#mcp-tabs").active == "mcp-messages-tab"
        assert app.screen.query_one("#mcp-messages").row_count > 8
        await pilot.press("escape")


async def test_a_bad_mcp_entry_is_one_toast_and_the_app_starts(demo_project: Path) -> None:
    from tui.cli.main import options_from_args
    from tui.cli.parser import build_parser

    config = '{"mcpServers": {"my server": {"command": "x"}, "ok": {"type": "ws", "url": "wss://x"}}}'
    args = build_parser().parse_args(["--offline", "--cwd", str(demo_project), "--mcp-config", config])
    options = options_from_args(args)[0]
    app = AgentApp(options, permission_grace_s=0)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_until(pilot, lambda: len(notices(app)) >= 2)  # the first may be off the screen by the second
        texts = notices(app)
        assert any("'my server'" in t and "no spaces" in t for t in texts), texts
        assert any("mcpServers.ok.type" in t and "unknown transport 'ws'" in t for t in texts), texts
        assert app.session.mcp is None  # nothing usable was configured
