"""The real app in a real terminal (tmux) reads a file full of terminal attacks: the terminal is left alone.

The model (the fake API) writes the attacks, thinks them and reads `evil.txt` with the Read tool. The
pane must keep its title, stay on the alternate screen, not ring, not be cleared (the header line is
still drawn), and show the escape sequences as visible text.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.attacks import ATTACKS
from tests.fakeapi import FakeAPI, reply, text, thinking, tool_use

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

#: a tmux server of this process's own (killed after the test): no other test or run shares it
SOCKET = f"sanitiser-{uuid.uuid4().hex[:10]}"
TITLE = "agent-tui-under-test"


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", "-L", SOCKET, *args], capture_output=True, text=True, timeout=10).stdout


def wait_for(pane: str, what: str, check: Callable[[str], bool], timeout: float = 60) -> None:
    """Poll the pane (tmux gives no 'rendered' signal) until `check(screen)`; fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not check(screen := tmux("capture-pane", "-p", "-t", pane)):
        if time.monotonic() > deadline:
            state = tmux("display", "-p", "-t", pane, "title #{pane_title}, alternate screen #{alternate_on}")
            raise AssertionError(f"timed out waiting for {what} ({state.strip()}); the pane shows:\n{screen}")
        time.sleep(0.1)


def turn_over(screen: str) -> bool:
    """The Read ran and the status line (second-last row) is idle again."""
    lines = screen.rstrip("\n").splitlines()
    return "✔ Read" in screen and len(lines) > 2 and " idle " in lines[-2]


@pytest.fixture
def pane(tmp_path: Path) -> Iterator[str]:
    """A tmux session running agent-tui in a project holding evil.txt, against the fake API."""
    project = tmp_path / "proj"
    project.mkdir()
    (project / "evil.txt").write_text(ATTACKS)
    (tmp_path / "home").mkdir()
    script = [
        reply(
            thinking("thinking about " + ATTACKS),
            text("Reading it. " + ATTACKS),
            tool_use("Read", {"file_path": str(project / "evil.txt")}),
            stop_reason="tool_use",
        ),
        reply(text("The file says:\n\n" + ATTACKS), stop_reason="end_turn"),
    ]
    name = f"attacks-{os.getpid()}"
    env = {
        "ANTHROPIC_BASE_URL": "",
        "ANTHROPIC_API_KEY": "sk-test",
        "HOME": str(tmp_path / "home"),
        "XDG_CONFIG_HOME": str(tmp_path / "home/.config"),
        "XDG_DATA_HOME": str(tmp_path / "home/.local/share"),
        "COLORTERM": "truecolor",
        **{k: v for k, v in os.environ.items() if k == "PYTHONPATH"},
    }
    with FakeAPI(script) as api:
        env["ANTHROPIC_BASE_URL"] = api.base_url
        env_args = [arg for key, value in env.items() for arg in ("-e", f"{key}={value}")]
        subprocess.run(
            [
                "tmux",
                "-L",
                SOCKET,
                "new-session",
                "-d",
                "-s",
                name,
                "-x",
                "140",
                "-y",
                "45",
                "-c",
                str(project),
                *env_args,
                sys.executable,
                "-m",
                "tui.cli.main",
            ],
            check=True,
            timeout=10,
        )
        try:
            tmux("resize-window", "-t", name, "-x", "140", "-y", "45")  # -x/-y were not always kept
            tmux("select-pane", "-t", name, "-T", TITLE)
            yield name
        finally:
            tmux("kill-server")


def test_a_file_of_terminal_attacks_leaves_the_terminal_alone(pane: str) -> None:
    wait_for(pane, "the first frame", lambda screen: "Ask the agent" in screen)
    assert tmux("display", "-p", "-t", pane, "#{pane_title}").strip() == TITLE
    tmux("send-keys", "-t", pane, "-l", "show me evil.txt")
    tmux("send-keys", "-t", pane, "Enter")
    wait_for(pane, "the end of the turn", turn_over)
    tmux("send-keys", "-t", pane, "End")  # the newest output, whether or not the view followed it
    wait_for(pane, "the final reply", lambda screen: "The file says:" in screen)

    state = tmux("display", "-p", "-t", pane, "#{pane_title}|#{alternate_on}|#{window_bell_flag}").strip()
    assert state == f"{TITLE}|1|0", "title|alternate screen|bell"
    screen = tmux("capture-pane", "-p", "-t", pane)
    assert screen.splitlines()[0].lstrip().startswith("agent-tui ·"), screen  # not cleared or reset
    assert "PWNED-TITLE2" in screen and "␛]2;" in screen  # the attack is there, visibly
