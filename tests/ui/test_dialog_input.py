"""The permission dialog answers only keys the user pressed while looking at it (issue 12 §3), driven by Pilot.

Keys are posted to the app as the terminal driver posts them; a key's arrival time is
stamped when the event is created, so a key created before the dialog was drawn is one
that was typed before it opened, however late the UI gets round to it.
"""

from __future__ import annotations

from concurrent.futures import Future

import pytest
from textual import events

from tui.agent import events as ev
from tui.agent.events.permission import PermissionReply
from tui.ui.app import AgentApp
from tui.ui.screens.permission_dialog import PASTE_NOTICE, PermissionDialog
from tui.ui.screens.vetted_screen import BURST_NOTICE

from .conftest import SIZE, wait_until
from .fake_engine import FakeSession

GRACE_S = 0.05


def ask(session: FakeSession, command: str = "rm -rf build") -> Future:
    """Publish a Bash permission request, as the engine does; its future gets the answer."""
    future: Future = Future()
    session.bus.publish(
        ev.PermissionRequested(
            tool_use_id="t0",
            tool_name="Bash",
            input={"command": command},
            label=f"Bash: {command}",
            preview={"kind": "command", "text": command, "cwd": "/tmp"},
            suggested_rule="Bash(rm:*)",
            reason="",
            reply=future,
        )
    )
    return future


def key(name: str) -> events.Key:
    return events.Key(name, "\r" if name == "enter" else name if len(name) == 1 else None)


async def drawn_and_armed(pilot, app: AgentApp) -> PermissionDialog:
    """Wait until the dialog is on screen and its grace time is over."""
    await wait_until(pilot, lambda: isinstance(app.screen, PermissionDialog) and app.screen.guard.shown_at)
    dialog = app.screen
    assert isinstance(dialog, PermissionDialog)
    await pilot.pause(GRACE_S * 2)  # the grace timer, not a worker
    assert dialog.armed
    return dialog


async def test_keys_typed_before_the_dialog_opened_never_answer_it(fake_session: FakeSession) -> None:
    app = AgentApp(fake_session.options, session=fake_session, permission_grace_s=GRACE_S)
    async with app.run_test(size=SIZE) as pilot:
        typed_early = [key("enter"), key("1"), key("enter")]  # typed while the turn ran, still queued
        future = ask(fake_session)
        dialog = await drawn_and_armed(pilot, app)
        for k in typed_early:  # the UI reaches them only now, after the grace time
            app.post_message(k)
        await pilot.pause()
        assert app.screen is dialog and not future.done()
        assert dialog.guard.dropped == 3
        await pilot.pause(GRACE_S)
        await pilot.press("enter")  # pressed while looking at it: answers
        await wait_until(pilot, lambda: future.done())
        assert future.result() == PermissionReply(True, scope="once")


@pytest.mark.parametrize(
    "pasted, notice",
    [
        # an unbracketed paste of "ls\n2\n": keys in one read, microseconds apart
        (["l", "s", "enter", "2", "enter"], BURST_NOTICE),
        (["paste:1\n"], PASTE_NOTICE),  # a bracketed paste
    ],
    ids=["burst", "bracketed"],
)
async def test_a_paste_never_answers_but_a_lone_key_does(fake_session: FakeSession, pasted, notice) -> None:
    app = AgentApp(fake_session.options, session=fake_session, permission_grace_s=GRACE_S)
    async with app.run_test(size=SIZE) as pilot:
        future = ask(fake_session)
        dialog = await drawn_and_armed(pilot, app)
        messages = [events.Paste(p[6:]) if p.startswith("paste:") else key(p) for p in pasted]
        for message in messages:
            message.time = messages[0].time  # created together, as the driver creates them from one read
            app.post_message(message)
        await wait_until(pilot, lambda: notice in str(dialog.query_one("#permission-help").render()))
        assert app.screen is dialog and not future.done()
        await pilot.pause(GRACE_S * 2)  # the next key comes after a pause, as a person's: not typing
        await pilot.press("2")
        await wait_until(pilot, lambda: future.done())
        assert future.result() == PermissionReply(True, scope="session")


async def test_at_40x12_the_choices_show_and_enter_scrolls_a_cut_off_command(fake_session: FakeSession) -> None:
    app = AgentApp(fake_session.options, session=fake_session, permission_grace_s=0)
    async with app.run_test(size=(40, 12)) as pilot:
        command = " && ".join(f"./step{n}.sh --flag value{n}" for n in range(12))  # ~20 lines at this width
        future = ask(fake_session, command)
        await wait_until(pilot, lambda: isinstance(app.screen, PermissionDialog) and app.screen.guard.shown_at)
        await pilot.pause()
        dialog = app.screen
        choices, preview = dialog.query_one("#choices"), dialog.query_one("#permission-preview")
        assert choices.region.height == 4 and choices.region.bottom <= 12  # every choice on screen
        assert preview.region.height >= 1 and preview.max_scroll_y > 0  # the command does not fit
        enters = 0
        while not future.done():
            assert enters < 30, "Enter never allowed the command"
            await pilot.press("enter")
            enters += 1
            await pilot.pause()
            if not future.done():
                assert "cut off" in str(dialog.query_one("#permission-help").render())
        assert enters > 1 and preview.scroll_y == preview.max_scroll_y  # allowed only once all of it was shown
        assert future.result() == PermissionReply(True, scope="once")


async def test_keys_typed_before_the_trust_dialog_opened_never_trust_the_folder(offline_options, demo_project) -> None:
    from tui.config.settings import load_settings
    from tui.ui.screens.trust_dialog import TrustDialog

    (demo_project / ".agent-tui").mkdir()
    (demo_project / ".agent-tui" / "settings.toml").write_text('[permissions]\nallow = ["Bash(make *)"]\n')
    typed_early = [key("y"), key("1")]  # a prompt typed at start-up, before the question appeared
    app = AgentApp(offline_options(), permission_grace_s=GRACE_S)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TrustDialog) and app.screen.armed)
        dialog = app.screen
        for k in typed_early:
            app.post_message(k)
        await pilot.pause(0.1)
        assert app.screen is dialog and not load_settings(demo_project).trusted
        await pilot.press("1")
        await wait_until(pilot, lambda: not isinstance(app.screen, TrustDialog))
        assert load_settings(demo_project).trusted
