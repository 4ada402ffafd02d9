"""The app asks once whether to trust a folder whose own settings allow things."""

from __future__ import annotations

from tui.config.settings import load_settings
from tui.ui.app import AgentApp
from tui.ui.screens.trust_dialog import TrustDialog

from .conftest import SIZE, wait_until


def _allow_rule(project) -> None:
    (project / ".agent-tui").mkdir()
    (project / ".agent-tui" / "settings.toml").write_text('[permissions]\nallow = ["Bash(make *)"]\n')


async def test_trusting_the_folder_makes_its_allow_rules_count(offline_options, demo_project) -> None:
    _allow_rule(demo_project)
    app = AgentApp(offline_options(), permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TrustDialog) and app.screen.armed)
        assert "Bash(make *)" in str(app.screen.query_one("#trust-rules").render())
        await pilot.press("1")
        await wait_until(pilot, lambda: not isinstance(app.screen, TrustDialog))
        assert load_settings(demo_project).trusted
        await wait_until(pilot, lambda: any(r.rule == "Bash(make *)" and r.counts
                                            for r in app.session.policy.effective_rules()))


async def test_declining_is_remembered(offline_options, demo_project) -> None:
    _allow_rule(demo_project)
    app = AgentApp(offline_options(), permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TrustDialog) and app.screen.armed)
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, TrustDialog))
    loaded = load_settings(demo_project)
    assert not loaded.trusted and loaded.settings.declined_folders
    again = AgentApp(offline_options(), permission_grace_s=0)
    async with again.run_test(size=SIZE) as pilot:
        await pilot.pause(1.0)
        assert not isinstance(again.screen, TrustDialog)


async def test_a_folder_without_allow_rules_is_not_asked_about(offline_options) -> None:
    app = AgentApp(offline_options(), permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(1.0)
        assert not isinstance(app.screen, TrustDialog)


async def test_a_broken_settings_file_is_reported_and_the_app_still_starts(offline_options, demo_project) -> None:
    (demo_project / ".agent-tui").mkdir()
    (demo_project / ".agent-tui" / "settings.toml").write_text("model = \n")
    app = AgentApp(offline_options(), permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: any("settings.toml:1" in str(n.message) for n in app._notifications))
