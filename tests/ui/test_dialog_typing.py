"""Typing that was going to the prompt never answers a dialog that opens under it (issue 32), and is not lost.

Keys are posted as the terminal driver posts them, each stamped with its arrival time; the times here
are set by hand (typing at 120 ms a key, as a person types) so no test waits for more than the grace time.
"""

from __future__ import annotations

from concurrent.futures import Future

from textual import events

from tui.agent.events.permission import PermissionReply
from tui.ui.answer_guard import AnswerGuard
from tui.ui.app import AgentApp
from tui.ui.screens.permission_dialog import PermissionDialog
from tui.ui.screens.vetted_screen import TYPING_NOTICE

from .conftest import SIZE, wait_until
from .fake_engine import FakeSession
from .test_dialog_input import ask

#: the dialogs' grace time in these tests (the app's is 0.5 s): also the pause that ends a stream of typing
GRACE_S = 0.2
#: a person typing: one key every 120 ms
KEY_GAP_S = 0.12


def typed(text: str, last_at: float) -> list[events.Key]:
    """The keys of `text` typed at KEY_GAP_S a key, the last arriving at `last_at`."""
    names = {" ": "space", "\r": "enter"}
    keys = []
    for index, char in enumerate(text):
        key = events.Key(names.get(char, char), char)
        key.time = last_at - KEY_GAP_S * (len(text) - 1 - index)
        keys.append(key)
    return keys


def test_the_guard_takes_a_key_only_after_a_pause_in_typing_or_a_deliberate_choice():
    guard = AnswerGuard(grace_s=0.5)
    guard.shown(10.0)
    guard.before = 9.9  # the user was typing into the prompt when the dialog opened
    stream = [10.0 + KEY_GAP_S * i for i in range(1, 8)]  # 10.12 ... 10.84
    assert [guard.admit(t, "x") for t in stream] == [False] * 7  # in the grace time, then still typing
    assert guard.dropped == 4 and guard.typed_ahead == 3
    assert not guard.admit(10.96, "y")  # the `y` 0.96 s after the dialog was drawn: typed ahead too
    assert guard.admit(11.5, "y")  # after a pause: an answer
    assert guard.admit(11.6, "down") and guard.admit(11.7, "enter")  # arrow + Enter: a deliberate choice
    assert not guard.admit(11.8, "enter")  # an Enter after an Enter is typing again
    assert guard.admit(12.5, "down") and guard.admit(12.6, "space") and guard.admit(12.7, "space")  # ticking boxes
    assert guard.admit(12.8, "down") and guard.admit(12.9, "enter")
    assert guard.admit(11.9, "x", typing_text=True)  # the dialog's own text box takes typing


async def test_typing_that_goes_on_never_answers_the_trust_question(offline_options, demo_project) -> None:
    from tui.config.settings import load_settings
    from tui.ui.screens.trust_dialog import TrustDialog

    (demo_project / ".agent-tui").mkdir()
    (demo_project / ".agent-tui" / "settings.toml").write_text('[permissions]\nallow = ["Bash(make *)"]\n')
    app = AgentApp(offline_options(), permission_grace_s=GRACE_S)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TrustDialog) and app.screen.armed)
        dialog = app.screen
        assert dialog.guard.armed_at() is not None
        # "ok try again" runs across the moment the dialog opened; its `y` lands 0.3 s after it was drawn
        for key in typed("ok try againy", dialog.guard.shown_at + GRACE_S + 0.1):
            app.post_message(key)
        await wait_until(pilot, lambda: dialog.guard.typed_ahead >= 1)
        await pilot.pause(GRACE_S + 0.1)  # the grace and the pause after the last key
        assert app.screen is dialog and not load_settings(demo_project).trusted
        await pilot.press("n")  # a key after a pause answers
        await wait_until(pilot, lambda: not isinstance(app.screen, TrustDialog))
        await wait_until(pilot, lambda: app.prompt_area.text == "ok try againy")  # the typing reached the prompt
    assert not load_settings(demo_project).trusted


async def test_enter_in_a_stream_of_typing_never_allows_but_arrow_and_enter_do(fake_session: FakeSession) -> None:
    app = AgentApp(fake_session.options, session=fake_session, permission_grace_s=GRACE_S)
    async with app.run_test(size=SIZE) as pilot:
        future: Future = ask(fake_session)
        await wait_until(pilot, lambda: isinstance(app.screen, PermissionDialog) and app.screen.armed)
        dialog = app.screen
        start = dialog.guard.shown_at + 0.05
        for key in typed("fine\r", start + 4 * KEY_GAP_S):  # from the grace time on, at typing speed
            app.post_message(key)
        await wait_until(pilot, lambda: dialog.guard.typed_ahead >= 3)
        await wait_until(pilot, lambda: TYPING_NOTICE in str(dialog.query_one("#permission-help").render()))
        assert not future.done() and app.screen is dialog
        for key in typed("\r", start + 5 * KEY_GAP_S):  # still typing: the highlight moved by nothing
            app.post_message(key)
        down = events.Key("down", None)
        down.time = start + 6 * KEY_GAP_S
        enter = events.Key("enter", "\r")
        enter.time = start + 7 * KEY_GAP_S
        app.post_message(down)  # a deliberate choice: the arrow, then Enter
        app.post_message(enter)
        await wait_until(pilot, lambda: future.done())
        assert future.result() == PermissionReply(True, scope="session")
        await wait_until(pilot, lambda: app.prompt_area.text == "fine")  # the typed-ahead text, not the Enters
