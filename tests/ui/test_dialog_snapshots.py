"""Every dialog with long content at 80×24 and 120×40: a snapshot, and its answers and key hints on screen (issue 35).

The screens that show a project's own files (/agents, /hooks, /plugin, /mcp, /permissions, /context …) are
checked on their regions in test_dialog_sizes.py: their paths change with each test's temp folder.
"""

from __future__ import annotations

import pytest
from textual.pilot import Pilot

from tests.fixtures import copy_claude_setup, grow_claude_setup

from .conftest import wait_for_dialog_look, wait_until
from .dialog_sizes import answers_problems, dialog_factories, fixed_inventory
from .test_app_snapshots import _freeze, snapshot_app

SIZES = [(80, 24), (120, 40)]
NAMES = sorted([*dialog_factories(), "trust"])


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("name", NAMES)
def test_dialog_snapshot(name, size, snap_compare, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "home" / ".claude"))
    inventory = fixed_inventory(grow_claude_setup(copy_claude_setup(tmp_path)))
    screen = dialog_factories(inventory)[name]()

    def footer_fitted(app) -> bool:
        """The main screen's footer has left out the keys that do not fit (widgets/whole_footer.py)."""
        footer = app.screen_stack[0].query_one("Footer")
        keys = [k for k in footer.children if k.display]
        palette = [k for k in keys if k.has_class("-command-palette")]
        return (
            bool(keys)
            and all(k.region.area for k in keys)
            and all(k.region.right <= palette[0].region.x for k in keys if palette and k not in palette)
        )

    async def run_before(pilot: Pilot) -> None:
        await _freeze(pilot)
        await wait_until(pilot, lambda: footer_fitted(pilot.app))
        pilot.app.push_screen(screen)
        await wait_for_dialog_look(pilot, screen)
        await pilot.pause(0.1)
        await pilot.wait_for_scheduled_animations()
        assert answers_problems(screen, size) == []

    assert snap_compare(snapshot_app(), terminal_size=size, run_before=run_before)
