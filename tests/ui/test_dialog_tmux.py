"""The permission dialog in a real terminal (tmux): queued keys and pastes never answer it (issue 12 §3)."""

from __future__ import annotations

import time
from pathlib import Path

from .tmux_driver import Tmux, needs_tmux, tmux_app  # noqa: F401 - tmux_app is a fixture

PROMPT = "find the TODOs and fix one"
DIALOG = "Allow Edit app.py?"
#: longer than the dialog's grace time (0.3 s): keys that were going to answer it have done so by then
SETTLE_S = 1.0


def dialog_open(term: Tmux) -> str:
    return term.wait_for(lambda screen: DIALOG in screen, "the permission dialog")


def still_open_after_a_while(term: Tmux, project: Path, before: str) -> str:
    time.sleep(SETTLE_S)  # nothing to wait for: the point is that nothing happens
    screen = term.screen()
    assert DIALOG in screen, screen
    assert (project / "app.py").read_text() == before
    return screen


def refused_with(term: Tmux, project: Path, before: str, notice: str) -> None:
    """The dialog tells why the input did nothing (waited for: a loaded app draws it late), and stays open."""
    term.wait_for(lambda screen: notice in screen, f"the notice {notice!r}")
    screen = still_open_after_a_while(term, project, before)
    assert notice in screen, screen


def approve_with_a_lone_enter(term: Tmux, project: Path, before: str) -> None:
    term.keys("Enter")
    term.wait_for(lambda screen: DIALOG not in screen, "the dialog to close")
    deadline = time.monotonic() + 15
    while (project / "app.py").read_text() == before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert (project / "app.py").read_text() != before  # a key pressed while looking at it does answer


@needs_tmux
def test_enter_keys_sent_with_the_prompt_never_approve(tmux_app: Tmux, demo_project: Path) -> None:
    before = (demo_project / "app.py").read_text()
    tmux_app.start_app("--offline")
    tmux_app.keys(PROMPT, "Enter", "Enter", "Enter", "Enter", "Enter", "Enter", "Enter", "Enter")
    dialog_open(tmux_app)
    tmux_app.keys("Enter", "Enter", "Enter")  # a burst: queued keys, a key held down, a paste
    still_open_after_a_while(tmux_app, demo_project, before)
    approve_with_a_lone_enter(tmux_app, demo_project, before)


@needs_tmux
def test_a_paste_into_the_dialog_never_answers_it(tmux_app: Tmux, demo_project: Path) -> None:
    before = (demo_project / "app.py").read_text()
    tmux_app.start_app("--offline")
    tmux_app.keys(PROMPT, "Enter")
    dialog_open(tmux_app)
    time.sleep(SETTLE_S)  # well past the grace time: only the paste itself can be refused
    tmux_app.paste("ls -la\n1\n", bracketed=False)  # arrives as typed-in keys, Enter among them
    refused_with(tmux_app, demo_project, before, "Ignored keys that arrived together")
    tmux_app.paste("1\n", bracketed=True)
    refused_with(tmux_app, demo_project, before, "Pasted text is not an answer")
    approve_with_a_lone_enter(tmux_app, demo_project, before)


@needs_tmux
def test_at_40x12_the_dialog_shows_its_question_preview_and_every_choice(tmux_app: Tmux, demo_project: Path) -> None:
    tmux_app.width, tmux_app.height = 40, 12
    tmux_app.start_app("--offline")
    tmux_app.keys(PROMPT, "Enter")
    screen = dialog_open(tmux_app)
    for text in ("--- a/app.py", "1  Allow once", "2  Allow this session", "3  Always allow", "4  Deny", "Esc deny"):
        assert text in screen, screen
    assert len(screen.rstrip("\n").split("\n")) == 12
