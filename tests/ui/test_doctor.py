"""Plugin problems are toasted at the first start only (per file change) and /doctor lists them every time (issue 35)."""

from __future__ import annotations

from pathlib import Path

from tests.fixtures import copy_plugin_market
from tui.ui.app import AgentApp

from .conftest import SIZE, notices, wait_until

PROBLEM = "both have a command /greet"


def _options(demo_project: Path):
    from tui.cli.main import options_from_args
    from tui.cli.parser import build_parser

    options, _ = options_from_args(build_parser().parse_args(["--offline", "--cwd", str(demo_project)]))
    options.interactive, options.transcript = True, False
    return options


async def test_a_plugin_problem_is_toasted_once_and_doctor_lists_it_at_every_start(
    tmp_path: Path, demo_project: Path
) -> None:
    from tui.config.settings import load_settings
    from tui.plugins.install import install, set_enabled
    from tui.plugins.marketplaces import add_marketplace
    from tui.plugins.sources import parse_source
    from tui.ui.screens.doctor_screen import DoctorScreen

    add_marketplace(parse_source(str(copy_plugin_market(tmp_path)), demo_project))
    for name in ("toolkit", "twin"):
        install(f"{name}@team-tools")
        set_enabled(f"{name}@team-tools", True, demo_project, load_settings(demo_project))
    app = AgentApp(_options(demo_project), permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: any(PROBLEM in n for n in notices(app)))

    again = AgentApp(_options(demo_project), permission_grace_s=0)
    async with again.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: any(PROBLEM in text for _, text in again.start_problems))
        await pilot.pause(0.3)
        assert not any(PROBLEM in str(n.message) for n in again._notifications)  # said once, not at every start
        await again.submit_prompt("/doctor")
        await wait_until(pilot, lambda: isinstance(again.screen, DoctorScreen) and again.screen.query("#doctor-list"))
        listed = str(again.screen.query_one("#doctor-list").render())
        assert "Plugins" in listed and PROBLEM in listed
