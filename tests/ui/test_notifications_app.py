"""Notifications in the app: a dialog or a long turn's end notifies while the terminal is not focused."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual import events

from tui.ui.app import AgentApp
from tui.ui.screens.permission_dialog import PermissionDialog

from .conftest import SIZE, type_prompt, wait_for_dialog, wait_until
from .fake_engine import FakeSession


@pytest.fixture(autouse=True)
def own_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))


def settings(project: Path, text: str) -> None:
    (project / ".agent-tui").mkdir(exist_ok=True)
    (project / ".agent-tui" / "settings.toml").write_text(text)


async def test_a_dialog_and_a_long_turn_notify_when_the_terminal_never_reported_focus(
    fake_session: FakeSession, demo_project: Path
) -> None:
    settings(demo_project, "notify_after = 2.0\n")  # the fake turn takes 2.7 s
    app = AgentApp(fake_session.options, session=fake_session, permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "fix the TODO")
        await wait_for_dialog(pilot, PermissionDialog)
        notifier = app.controller.notifier
        assert notifier.sent == [("permission_prompt", "Permission needed: Edit(app.py)")]
        await pilot.pause()  # a key counts only once the dialog is drawn
        await pilot.press("1")
        await wait_until(pilot, lambda: not app.controller.busy)
        assert notifier.sent[-1] == ("idle_prompt", "The turn finished after 2 s")


async def test_nothing_while_the_terminal_reports_focus_and_again_once_it_loses_it(
    fake_session: FakeSession, demo_project: Path
) -> None:
    app = AgentApp(fake_session.options, session=fake_session, permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        app.post_message(events.AppFocus())  # the terminal says it has focus
        await wait_until(pilot, lambda: app.focus_reported)
        await type_prompt(pilot, "fix the TODO")
        await wait_for_dialog(pilot, PermissionDialog)
        await pilot.press("1")
        await wait_until(pilot, lambda: not app.controller.busy)
        assert app.controller.notifier.sent == []  # a 2.7 s turn is short of notify_after (10 s) anyway
        app.post_message(events.AppBlur())  # the user went to another window
        await wait_until(pilot, lambda: not app.app_focus)
        await app.submit_prompt("fix the TODO")  # not typed: a key would say the user is back
        await wait_for_dialog(pilot, PermissionDialog)
        assert [kind for kind, _ in app.controller.notifier.sent] == ["permission_prompt"]
        await pilot.press("1")
        await wait_until(pilot, lambda: not app.controller.busy)


async def test_off_sends_nothing(fake_session: FakeSession, demo_project: Path) -> None:
    settings(demo_project, 'notifications = "off"\nnotify_after = 0\n')
    app = AgentApp(fake_session.options, session=fake_session, permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "fix the TODO")
        await wait_for_dialog(pilot, PermissionDialog)
        await pilot.press("1")
        await wait_until(pilot, lambda: not app.controller.busy)
        assert app.controller.notifier.sent == []
