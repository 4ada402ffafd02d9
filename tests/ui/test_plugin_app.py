"""/plugin in the app (add a marketplace, install, disable, enable: in force at once), and the trust question
naming the hooks of a plugin that a folder's settings enable."""

from __future__ import annotations

import json
from pathlib import Path

from tests.fixtures import copy_plugin_market
from tui.agent.prompt.catalog import session_catalog
from tui.ui.app import AgentApp
from tui.ui.commands import run_slash
from tui.ui.screens.plugin_screen import PluginScreen
from tui.ui.screens.trust_dialog import TrustDialog

from .conftest import SIZE, notices, wait_until


def _status(app: AgentApp) -> str:
    found = app.screen.query("#plugin-status")  # empty until the screen has mounted its children
    return str(found.first().render()) if found else ""


async def test_install_and_enable_from_the_plugin_screen(offline_options, tmp_path: Path) -> None:
    market = copy_plugin_market(tmp_path)
    app = AgentApp(offline_options(), permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        await run_slash(app, "/plugin")
        await wait_until(pilot, lambda: isinstance(app.screen, PluginScreen))
        screen = app.screen
        await wait_until(pilot, lambda: "No marketplace yet" in _status(app))
        await pilot.press("a")
        await pilot.press(*str(market), "enter")
        await wait_until(pilot, lambda: any(r.plugin == "toolkit" for r in screen.rows), timeout=30)
        assert "Added the marketplace team-tools with 7 plugins" in _status(app)
        await pilot.press("down")  # the marketplace's row, then its first plugin
        assert screen.selected().plugin == "toolkit" and screen.selected().state == "not installed"
        await pilot.press("i")
        await wait_until(pilot, lambda: screen.selected().state == "enabled", timeout=30)
        assert screen.selected().detail == "2 commands, 1 skill, 1 agent"
        catalog = session_catalog(app.session)
        assert catalog.get("toolkit:greet") is not None and catalog.get("greet") is not None  # no restart needed
        agent_tool = next(t for t in app.session.tools if t.name == "Agent")
        assert "toolkit:reviewer" in [d.name for d in agent_tool.definitions()]
        await pilot.press("d")
        await wait_until(pilot, lambda: screen.selected().state == "disabled", timeout=30)
        assert session_catalog(app.session).get("toolkit:greet") is None
        await pilot.press("e")
        await wait_until(pilot, lambda: screen.selected().state == "enabled", timeout=30)
        assert session_catalog(app.session).get("toolkit:greet") is not None
        assert any("Enabled toolkit@team-tools" in n for n in notices(app))
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, PluginScreen))


async def test_the_trust_question_names_the_hooks_of_a_plugin_the_folder_enables(
    offline_options, demo_project, tmp_path: Path
) -> None:
    market = copy_plugin_market(tmp_path)
    (demo_project / ".claude").mkdir()
    (demo_project / ".claude" / "settings.json").write_text(
        json.dumps(
            {
                "enabledPlugins": {"guard@team-tools": True},
                "extraKnownMarketplaces": {"team-tools": {"source": {"source": "directory", "path": str(market)}}},
            }
        )
    )
    app = AgentApp(offline_options(), permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TrustDialog) and app.screen.armed)
        listed = app.screen.listed
        for line in (
            "1 plugin runs its hooks and MCP servers and loads its agents",
            ".claude/settings.json",
            "guard@team-tools: 2 hooks",
            "guard@team-tools hook UserPromptSubmit *: ${CLAUDE_PLUGIN_ROOT}/hooks/mark.sh",
            "guard@team-tools hook PreToolUse Bash: ${CLAUDE_PLUGIN_ROOT}/hooks/mark.sh",
        ):
            assert line in listed, line
        await pilot.press("1")
        await wait_until(pilot, lambda: not isinstance(app.screen, TrustDialog))
        hooks = lambda: app.session.options.hooks  # noqa: E731
        await wait_until(pilot, lambda: hooks() is not None and any(h.plugin for h in hooks().hooks), timeout=30)
        assert {h.event for h in hooks().hooks if h.plugin == "guard@team-tools"} == {"UserPromptSubmit", "PreToolUse"}
        assert hooks().trusted and app.session.hooks is not None
        await wait_until(pilot, lambda: any("Installed the plugin guard@team-tools" in n for n in notices(app)))


async def test_plugin_problems_are_toasts_and_the_app_starts(tmp_path: Path, demo_project: Path) -> None:
    from tui.cli.main import options_from_args
    from tui.cli.parser import build_parser
    from tui.config.settings import load_settings
    from tui.plugins.install import install, set_enabled
    from tui.plugins.marketplaces import add_marketplace
    from tui.plugins.sources import parse_source

    add_marketplace(parse_source(str(copy_plugin_market(tmp_path)), demo_project))
    for name in ("toolkit", "twin"):
        install(f"{name}@team-tools")
        set_enabled(f"{name}@team-tools", True, demo_project, load_settings(demo_project))
    options, _ = options_from_args(build_parser().parse_args(["--offline", "--cwd", str(demo_project)]))
    options.interactive, options.transcript = True, False
    app = AgentApp(options, permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: any("both have a command /greet" in n for n in notices(app)))
        assert session_catalog(app.session).get("twin:greet") is not None
