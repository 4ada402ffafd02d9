"""Every modal keeps its answers and key hints on screen at 40×12, 80×24, 120×40 and 200×60 (issue 35).

The content scrolls; the answer row is pinned (widgets/dialog_box.py). Checked on the widgets' regions,
and by snapshot at 80×24 and 120×40 (test_dialog_snapshots.py).
"""

from __future__ import annotations

import pytest

from tests.fixtures import copy_claude_setup, grow_claude_setup
from tui.ui.app import AgentApp
from tui.ui.widgets.dialog_box import DialogBox

from .conftest import wait_until
from .dialog_sizes import answers_problems, dialog_factories, fixed_inventory

SIZES = [(40, 12), (80, 24), (120, 40), (200, 60)]
NAMES = sorted([*dialog_factories(), "trust"])


@pytest.mark.parametrize("name", NAMES)
async def test_the_answers_stay_on_screen_at_every_size(name, offline_options, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    inventory = fixed_inventory(grow_claude_setup(copy_claude_setup(tmp_path)))
    screen = dialog_factories(inventory)[name]()
    app = AgentApp(offline_options(), permission_grace_s=0)
    async with app.run_test(size=SIZES[0]) as pilot:
        await pilot.pause()
        app.push_screen(screen)
        await wait_until(pilot, lambda: app.screen is screen)
        for size in SIZES:
            await pilot.resize_terminal(*size)
            await wait_until(pilot, lambda size=size: app.screen.size == size)
            await pilot.pause()
            assert answers_problems(screen, size) == [], size


SCREENS = [
    "/agents",
    "/hooks",
    "/plugin",
    "/mcp",
    "/permissions",
    "/context",
    "/memory",
    "/tasks",
    "/resume",
    "/help",
    "/doctor",
]


async def _open(pilot, command: str) -> None:
    app = pilot.app
    main = app.screen_stack[0]
    await app.submit_prompt(command)
    await wait_until(pilot, lambda: app.screen is not main and app.screen.query(DialogBox))


@pytest.mark.parametrize("command", SCREENS)
async def test_every_screen_keeps_its_key_hints_on_screen_with_a_large_setup(
    command, offline_options, tmp_path
) -> None:
    """A templates repository's `.claude/` (14 allow rules, 15 agents, hooks, MCP servers), trusted."""
    from tui.ui.screens.trust_dialog import TrustDialog

    project = grow_claude_setup(copy_claude_setup(tmp_path))
    app = AgentApp(offline_options(project_dir=project), permission_grace_s=0)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TrustDialog) and app.screen.armed)
        assert answers_problems(app.screen, (120, 40)) == []
        await pilot.press("1")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "McpApprovalDialog" and app.screen.armed)
        await pilot.press("3")
        await wait_until(pilot, lambda: len(app.screen_stack) == 1)
        await _open(pilot, command)
        screen = app.screen
        for size in SIZES:
            await pilot.resize_terminal(*size)
            await wait_until(pilot, lambda size=size: screen.size == size)
            await pilot.pause()
            assert answers_problems(screen, size) == [], size


async def test_tables_give_the_description_the_room_that_is_left(offline_options, tmp_path) -> None:
    """/agents at 120 columns: long Tools and Source cells are capped, the Description shows, nothing scrolls off."""
    from tui.config.settings import trust_folder

    project = grow_claude_setup(copy_claude_setup(tmp_path))
    trust_folder(project)
    app = AgentApp(offline_options(project_dir=project), permission_grace_s=0)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: type(app.screen).__name__ == "McpApprovalDialog" and app.screen.armed)
        await pilot.press("3")  # the fixture's .mcp.json servers: none
        await wait_until(pilot, lambda: len(app.screen_stack) == 1)
        await _open(pilot, "/agents")
        table = app.screen.query_one("#agents-table")
        description = table.ordered_columns[-1]
        await wait_until(pilot, lambda: table.row_count >= 15 and description.width >= 30)
        await pilot.pause()
        assert table.virtual_size.width <= table.scrollable_content_region.width
        shown = "\n".join(table.render_line(y).text for y in range(1, 8))
        assert "Reviews the part" in shown
