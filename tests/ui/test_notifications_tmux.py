"""Notifications in a real terminal (tmux): what the app writes when a dialog opens or a long turn ends.

`pipe-pane` records the exact bytes the app writes, before tmux interprets them; tmux's own bell
flag shows that a bell rang. tmux does not report focus here, so the app counts as unfocused
until the test types the terminal's focus-in report itself.
"""

from __future__ import annotations

import time
from pathlib import Path

from .tmux_driver import Tmux, needs_tmux, tmux_app  # noqa: F401 - tmux_app is a fixture

PROMPT = "find the TODOs and fix one"
DIALOG = "Allow Edit app.py?"
#: a settled screen: nothing more is coming (the point is that nothing happens)
SETTLE_S = 1.0
PASSTHROUGH_99 = b"\x1bPtmux;\x1b\x1b]99;i=agent-tui:d=0;agent-tui\x1b\x1b\\\x1b\x1b]99;i=agent-tui:p=body;"


def record(term: Tmux, log: Path) -> None:
    term.tmux("pipe-pane", "-o", "-t", "t", f"cat >> {log}")


def bell_rang(term: Tmux) -> bool:
    return term.tmux("display", "-p", "-t", "t", "#{window_bell_flag}").strip() == "1"


def written(log: Path) -> bytes:
    return log.read_bytes() if log.exists() else b""


def wait_for_bytes(log: Path, wanted: bytes, timeout: float = 60.0) -> bytes:
    deadline = time.monotonic() + timeout
    while wanted not in written(log):
        assert time.monotonic() < deadline, f"never written: {wanted!r}"
        time.sleep(0.05)
    return written(log)


@needs_tmux
def test_a_dialog_rings_the_bell_in_a_terminal_not_known_to_show_notifications(tmux_app: Tmux) -> None:
    tmux_app.start_app("--offline")
    assert not bell_rang(tmux_app)
    tmux_app.keys(PROMPT, "Enter")
    tmux_app.wait_for(lambda screen: DIALOG in screen, "the permission dialog")
    deadline = time.monotonic() + 60  # a bound for a loaded machine
    while not bell_rang(tmux_app):
        assert time.monotonic() < deadline, "no bell when the dialog opened"
        time.sleep(0.05)


@needs_tmux
def test_kitty_inside_tmux_gets_its_osc_99_through_the_passthrough_for_a_dialog_and_a_long_turn(
    tmux_app: Tmux, demo_project: Path, tmp_path: Path
) -> None:
    (demo_project / ".agent-tui").mkdir()
    (demo_project / ".agent-tui" / "settings.toml").write_text("notify_after = 0\n")  # every turn is long
    log = tmp_path / "written.bin"
    tmux_app.start_app("--offline", env={"KITTY_WINDOW_ID": "1"})
    record(tmux_app, log)
    tmux_app.keys(PROMPT, "Enter")
    tmux_app.wait_for(lambda screen: DIALOG in screen, "the permission dialog")
    wait_for_bytes(log, PASSTHROUGH_99 + b"Permission needed: Edit app.py\x1b\x1b\\\x1b\\")
    # pressed until taken (a fixed second once fell in the grace time of a lagging app), then the rest of the turn
    tmux_app.answer("1", lambda screen: DIALOG not in screen)
    out = wait_for_bytes(log, PASSTHROUGH_99 + b"The turn finished after ")
    assert not bell_rang(tmux_app) and b"\x1b]99;" not in out.replace(b"\x1b\x1b]99;", b"")  # only wrapped


@needs_tmux
def test_a_terminal_that_reports_focus_gets_nothing_while_focused(tmux_app: Tmux, tmp_path: Path) -> None:
    log = tmp_path / "written.bin"
    tmux_app.start_app("--offline", env={"KITTY_WINDOW_ID": "1"})
    record(tmux_app, log)
    tmux_app.tmux("send-keys", "-t", "t", "-H", "1b", "5b", "49")  # the terminal's focus-in report: ESC [ I
    tmux_app.keys(PROMPT, "Enter")
    tmux_app.wait_for(lambda screen: DIALOG in screen, "the permission dialog")
    time.sleep(SETTLE_S)
    assert b"Ptmux;" not in written(log) and not bell_rang(tmux_app)
