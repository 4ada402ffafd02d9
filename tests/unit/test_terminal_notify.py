"""Which notification sequence a terminal gets, and that its text can never escape the sequence."""

from __future__ import annotations

import pytest

from tui.ui.terminal_notify import BEL, clean, detect_terminal, in_tmux, sequence


@pytest.mark.parametrize(
    "env, terminal",
    [
        ({"TERM_PROGRAM": "iTerm.app"}, "iterm2"),
        ({"LC_TERMINAL": "iTerm2", "TERM_PROGRAM": "tmux"}, "iterm2"),  # tmux hides TERM_PROGRAM, not the rest
        ({"KITTY_WINDOW_ID": "3", "TERM_PROGRAM": "tmux"}, "kitty"),
        ({"TERM": "xterm-kitty"}, "kitty"),
        ({"TERM_PROGRAM": "WezTerm"}, "wezterm"),
        ({"TERM_PROGRAM": "ghostty"}, "ghostty"),
        ({"WT_SESSION": "abc"}, "windows-terminal"),
        ({"TERM": "xterm-256color", "TERM_PROGRAM": "Apple_Terminal"}, None),
        ({}, None),
    ],
)
def test_the_terminal_is_recognised_from_the_environment(env, terminal):
    assert detect_terminal(env) == terminal


def test_each_known_terminal_gets_the_sequence_it_shows():
    assert sequence("auto", "agent-tui", "hi", {"TERM_PROGRAM": "iTerm.app"}) == "\x1b]9;agent-tui: hi\x07"
    assert sequence("auto", "agent-tui", "hi", {"KITTY_WINDOW_ID": "1"}) == (
        "\x1b]99;i=agent-tui:d=0;agent-tui\x1b\\\x1b]99;i=agent-tui:p=body;hi\x1b\\"
    )
    for env in ({"TERM_PROGRAM": "WezTerm"}, {"TERM_PROGRAM": "ghostty"}, {"WT_SESSION": "x"}):
        assert sequence("auto", "agent-tui", "hi", env) == "\x1b]777;notify;agent-tui;hi\x07"


def test_the_setting_chooses_bell_osc_or_nothing():
    assert sequence("auto", "t", "b", {}) == BEL  # a terminal not known to show notifications
    assert sequence("bell", "t", "b", {"TERM_PROGRAM": "iTerm.app"}) == BEL
    assert sequence("osc", "t", "b", {}) == "\x1b]777;notify;t;b\x07"
    assert sequence("off", "t", "b", {"TERM_PROGRAM": "iTerm.app"}) == ""


def test_inside_tmux_an_osc_goes_through_as_a_passthrough_and_the_bell_as_itself():
    env = {"TMUX": "/tmp/tmux-0/default,1,0", "TERM_PROGRAM": "tmux", "WEZTERM_PANE": "0"}
    assert sequence("auto", "t", "b", env) == "\x1bPtmux;\x1b\x1b]777;notify;t;b\x07\x1b\\"
    assert sequence("auto", "t", "b", {"TMUX": "x"}) == BEL
    assert in_tmux("\x1b]9;x\x1b\\") == "\x1bPtmux;\x1b\x1b]9;x\x1b\x1b\\\x1b\\"


def test_the_text_passes_the_sanitiser_and_cannot_end_the_sequence():
    hostile = "Edit x\x07\x1b]0;PWNED\x1b\\\x9c;rm -rf"
    out = sequence("auto", "a;b", hostile, {"TERM_PROGRAM": "WezTerm"})
    assert out.startswith("\x1b]777;notify;a,b;") and out.endswith("\x07")
    inner = out[len("\x1b]777;notify;") : -1]
    assert not any(ch in inner for ch in "\x07\x1b\x9c\n")
    assert len(clean("x" * 500)) == 200
