"""Project MCP servers in the app: trust first, then one dialog (all / choose / none), remembered."""

from __future__ import annotations

import json
import sys
import tomllib
from pathlib import Path

from tests.unit.mcp.test_mcp_cli import SERVER
from tui.config.paths import local_settings_file
from tui.ui.app import AgentApp
from tui.ui.screens.mcp_approval_dialog import McpApprovalDialog
from tui.ui.screens.trust_dialog import TrustDialog

from .conftest import SIZE, notices, wait_until
from .test_dialog_input import key


def _mcp_json(project: Path, tmp_path: Path) -> None:
    script = tmp_path / "tiny_server.py"
    script.write_text(SERVER)
    servers = {
        "tiny": {"command": sys.executable, "args": [str(script)]},
        "other": {"command": str(tmp_path / "never-started")},
    }
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))


async def test_trust_then_choose_starts_only_the_ticked_server_and_is_remembered(
    offline_options, demo_project: Path, tmp_path: Path
) -> None:
    _mcp_json(demo_project, tmp_path)
    app = AgentApp(offline_options(), permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TrustDialog) and app.screen.armed)
        listed = app.screen.listed
        assert "2 MCP servers may start" in listed and "tiny: " in listed and "other: " in listed
        assert app.session.mcp is None  # nothing from an untrusted folder starts
        await pilot.press("1")
        await wait_until(pilot, lambda: isinstance(app.screen, McpApprovalDialog) and app.screen.armed)
        assert "tiny: " in str(app.screen.query_one("#mcp-servers").render())
        await pilot.press("2")  # choose: both ticked at first
        await pilot.press("down", "space", "enter")  # untick "other", enable the rest
        await wait_until(pilot, lambda: not isinstance(app.screen, McpApprovalDialog))
        await wait_until(
            pilot, lambda: app.session.mcp is not None and app.session.mcp.manager.states["tiny"].status == "connected"
        )
        assert set(app.session.mcp.manager.states) == {"tiny"}
    data = tomllib.loads(local_settings_file(demo_project).read_text())
    assert (data["enabledMcpjsonServers"], data["disabledMcpjsonServers"]) == (["tiny"], ["other"])

    again = AgentApp(offline_options(), permission_grace_s=0)  # asked once: the answer stands
    async with again.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: again.session.mcp is not None and "tiny" in again.session.mcp.manager.states)
        await pilot.pause(0.3)
        assert not isinstance(again.screen, (McpApprovalDialog, TrustDialog))
        states = again.session.mcp.manager.states
        assert states["tiny"].status != "disabled" and states["other"].status == "disabled"  # listed for /mcp


async def test_none_starts_nothing_and_escape_asks_again_later(
    offline_options, demo_project: Path, tmp_path: Path
) -> None:
    _mcp_json(demo_project, tmp_path)
    (tmp_path / "config").mkdir(exist_ok=True)
    from tui.config.settings import trust_folder

    trust_folder(demo_project)
    typed_early = [key("1"), key("enter")]  # typed at start-up, before the question appeared
    app = AgentApp(offline_options(), permission_grace_s=0.05)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, McpApprovalDialog) and app.screen.armed)
        dialog = app.screen
        for early in typed_early:
            app.post_message(early)
        await pilot.pause(0.2)
        assert app.screen is dialog and app.session.mcp is None
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, McpApprovalDialog))
        assert app.session.mcp is None and not local_settings_file(demo_project).exists()
    again = AgentApp(offline_options(), permission_grace_s=0)
    async with again.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(again.screen, McpApprovalDialog) and again.screen.armed)
        await pilot.press("3")
        await wait_until(pilot, lambda: not isinstance(again.screen, McpApprovalDialog))
        assert again.session.mcp is None
    data = tomllib.loads(local_settings_file(demo_project).read_text())
    assert (data["enabledMcpjsonServers"], data["disabledMcpjsonServers"]) == ([], ["tiny", "other"])


async def test_not_trusting_the_folder_keeps_its_servers_off_and_is_remembered(
    offline_options, demo_project: Path, tmp_path: Path
) -> None:
    _mcp_json(demo_project, tmp_path)
    app = AgentApp(offline_options(), permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TrustDialog) and app.screen.armed)
        await pilot.press("2")
        await wait_until(
            pilot,
            lambda: "Not trusted: this folder's 2 MCP servers stay off. /trust loads them." in notices(app),
        )
        await pilot.pause(0.3)
        assert not isinstance(app.screen, McpApprovalDialog) and app.session.mcp is None
    again = AgentApp(offline_options(), permission_grace_s=0)
    async with again.run_test(size=SIZE) as pilot:
        await pilot.pause(1.0)
        assert not isinstance(again.screen, (TrustDialog, McpApprovalDialog)) and again.session.mcp is None


async def test_mcp_screen_disable_of_a_project_server_is_remembered_and_enable_undoes_it(
    offline_options, demo_project: Path, tmp_path: Path
) -> None:
    from tui.config.settings import trust_folder
    from tui.mcp.approval import record_choices

    _mcp_json(demo_project, tmp_path)
    (tmp_path / "config").mkdir(exist_ok=True)
    trust_folder(demo_project)
    record_choices(demo_project, ["tiny"], ["other"])

    async def toggle(app: AgentApp, pilot, status: str) -> None:
        await app.submit_prompt("/mcp")
        await wait_until(pilot, lambda: getattr(app.screen, "_ready", False))
        if app.screen.selected != "tiny":
            await pilot.press("down")
            await wait_until(pilot, lambda: app.screen.selected == "tiny")
        await pilot.press("e")
        await wait_until(pilot, lambda: app.session.mcp.manager.states["tiny"].status == status, timeout=30)
        # raised as the toggle is asked for, before the server connects: maybe gone from the screen by now
        await wait_until(pilot, lambda: any("for this folder" in n for n in notices(app)))
        await pilot.press("escape")

    app = AgentApp(offline_options(), permission_grace_s=0)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_until(
            pilot,
            lambda: app.session.mcp is not None and app.session.mcp.manager.states["tiny"].status == "connected",
            timeout=30,
        )
        await toggle(app, pilot, "disabled")
    data = tomllib.loads(local_settings_file(demo_project).read_text())
    assert (data["enabledMcpjsonServers"], data["disabledMcpjsonServers"]) == ([], ["other", "tiny"])

    again = AgentApp(offline_options(), permission_grace_s=0)  # the next session: listed as disabled, not started
    async with again.run_test(size=SIZE, notifications=True) as pilot:
        await wait_until(pilot, lambda: again.session.mcp is not None and "tiny" in again.session.mcp.manager.states)
        assert again.session.mcp.manager.states["tiny"].status == "disabled"
        assert again.session.mcp.manager.states["other"].status == "disabled"  # refused in the dialog: listed too
        await toggle(again, pilot, "connected")
    data = tomllib.loads(local_settings_file(demo_project).read_text())
    assert (data["enabledMcpjsonServers"], data["disabledMcpjsonServers"]) == (["tiny"], ["other"])
