"""Snapshot tests at 140×45 on the scripted fake engine with a fixed clock (deterministic)."""

from __future__ import annotations

from pathlib import Path

from textual.pilot import Pilot

from tui.agent.options import AgentOptions
from tui.ui.app import AgentApp
from tui.ui.screens.permission_dialog import PermissionDialog

from .conftest import SIZE, type_prompt, wait_for_dialog, wait_for_dialog_look, wait_until
from .fake_engine import FakeSession

FIXED_NOW = 1_700_000_100.0


def snapshot_app() -> AgentApp:
    options = AgentOptions(offline=True, interactive=True, project_dir=Path("/demo/project"), transcript=False)
    session = FakeSession(options, fixed_clock=True)
    return AgentApp(options, session=session, permission_grace_s=0)


async def _settle(pilot: Pilot) -> None:
    """Let deferred redraws (thinking fold, anchor scroll) land before the screenshot."""
    for _ in range(3):
        await pilot.pause(0.1)
        await pilot.wait_for_scheduled_animations()
    pilot.app.conversation.scroll_end(animate=False, immediate=True)
    # then until two screens 0.1 s apart are the same: on a loaded machine a fixed pause let the
    # snapshot catch tool lines before their last redraw (durations missing)
    previous = None
    for _ in range(50):
        await pilot.pause(0.1)
        screen = pilot.app.export_screenshot()
        if screen == previous:
            break
        previous = screen


async def _freeze(pilot: Pilot) -> None:
    app = pilot.app
    app.prompt_area.cursor_blink = False
    app.status.clock = lambda: 0.0
    app.tool_panel.clock = lambda: FIXED_NOW


def test_main_screen_after_a_turn(snap_compare) -> None:
    async def run_before(pilot: Pilot) -> None:
        await _freeze(pilot)
        await type_prompt(pilot, "find the TODOs and fix one")
        await wait_for_dialog(pilot, PermissionDialog)
        await pilot.press("1")
        await wait_until(pilot, lambda: not pilot.app.controller.busy)
        await wait_until(pilot, lambda: all(rec.is_final for rec, _ in pilot.app.controller._tools.values()))
        await _settle(pilot)

    assert snap_compare(snapshot_app(), terminal_size=SIZE, run_before=run_before)


def test_permission_dialog_with_a_diff(snap_compare) -> None:
    async def run_before(pilot: Pilot) -> None:
        await _freeze(pilot)
        await type_prompt(pilot, "find the TODOs and fix one")
        dialog = await wait_for_dialog(pilot, PermissionDialog)
        await wait_until(pilot, lambda: any(rec.state == "waiting" for rec, _ in pilot.app.controller._tools.values()))
        await wait_for_dialog_look(pilot, dialog)
        await _settle(pilot)

    assert snap_compare(snapshot_app(), terminal_size=SIZE, run_before=run_before)


def _fixture_inventory(tmp_path: Path, monkeypatch) -> object:
    """The trust inventory of the fixture Claude Code setup, its paths moved under /demo/project (a fixed title)."""
    from dataclasses import replace

    from tests.fixtures import copy_claude_setup
    from tui.trust.inventory import FolderInventory, folder_inventory

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "home" / ".claude"))
    project = copy_claude_setup(tmp_path)
    found = folder_inventory(project)
    fixed = Path("/demo/project")
    return FolderInventory(
        fixed,
        False,
        [replace(i, path=fixed / i.path.relative_to(project)) for i in found.items],
        found.catalog_counts,
        [p.replace(str(project), str(fixed)) for p in found.problems],
    )


def test_trust_dialog_names_everything_the_folder_brings(snap_compare, tmp_path, monkeypatch) -> None:
    from tui.ui.screens.trust_dialog import TrustDialog

    inventory = _fixture_inventory(tmp_path, monkeypatch)

    async def run_before(pilot: Pilot) -> None:
        await _freeze(pilot)
        dialog = TrustDialog(inventory, grace_s=0)
        await pilot.app.push_screen(dialog)
        await wait_for_dialog_look(pilot, dialog)
        await _settle(pilot)

    assert snap_compare(snapshot_app(), terminal_size=SIZE, run_before=run_before)
