"""The full-screen app in a real terminal (tmux) ends cleanly on SIGTERM, SIGHUP and Ctrl+C twice.

Each run approves a Bash command that leaves children behind (`&`, `setsid`, `nohup`, a double
fork) and keeps one in the foreground; after the exit the pane is back on the normal screen,
no child survives and the cwd temp file is gone.
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.fakeapi import FakeAPI
from tests.integration.test_exits import marked, marker, none_left, spawning_script

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")


class Pane:
    """One tmux server of our own (a socket no other test uses, not even an earlier one of this worker) with one pane."""

    def __init__(self, socket: str) -> None:
        self.socket = socket

    def tmux(self, *args: str) -> str:
        """One tmux command; a failing one raises with tmux's words (a lost `new` is never an empty pane)."""
        done = subprocess.run(
            ["tmux", "-L", self.socket, "-f", "/dev/null", *args], capture_output=True, text=True, timeout=10
        )
        if done.returncode != 0:
            raise AssertionError(f"tmux {args[0]} failed: {done.stderr.strip()}")
        return done.stdout

    def text(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "t")

    def wait_for(self, check: Callable[[], bool], what: str, seconds: float = 60) -> None:
        deadline = time.monotonic() + seconds
        while not check():
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}; the pane shows:\n{self.text()}")
            time.sleep(0.1)

    def wait_text(self, needle: str, seconds: float = 60) -> None:
        self.wait_for(lambda: needle in self.text(), repr(needle), seconds)

    def kill(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True, timeout=10)


@pytest.fixture
def pane() -> Iterator[Pane]:
    # not the worker's pid: the next test of this worker would reach the server this one's kill-server
    # is still winding down, and its `new` fails with "server exited unexpectedly"
    p = Pane(f"agent-tui-exit-{uuid.uuid4().hex[:10]}")
    yield p
    p.kill()


def approve(pane: Pane) -> bool:
    """Press 1 (allow once); True once the dialog has gone.

    Presses are 0.7 s apart: a key within 0.5 s of the previous one is typing, never an answer.
    """
    pane.tmux("send-keys", "-t", "t", "1")
    time.sleep(0.7)
    return "Allow once" not in pane.text()


def app_pid(shell_pid: int) -> int:
    """The agent-tui process: the child of the pane's shell."""
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat", "rb") as f:
                    if int(f.read().rsplit(b")", 1)[1].split()[1]) == shell_pid:
                        return int(name)
            except OSError:
                continue
    raise AssertionError("agent-tui is not running in the pane")


@pytest.mark.parametrize("how", ["SIGTERM", "SIGHUP", "ctrl-c-twice"])
def test_the_app_leaves_the_terminal_and_no_child_behind(tmp_path: Path, pane: Pane, how: str) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    (tmp_path / "tmp").mkdir()
    mark = marker()
    try:
        run_and_end(tmp_path, project, pane, how, mark)
    finally:
        left = none_left(mark)
    assert pane.tmux("display", "-p", "-t", "t", "#{alternate_on}").strip() == "0", "still on the alternate screen"
    assert "Traceback" not in pane.text()
    assert left == [], "a child of a Bash call outlived the app"
    assert [n for n in os.listdir(tmp_path / "tmp") if n.startswith("agent-tui-")] == []


def run_and_end(tmp_path: Path, project: Path, pane: Pane, how: str, mark: str) -> None:
    """Approve the command, then end the app `how`; a quit comes after the call, a signal during it."""
    quit_after_call = how == "ctrl-c-twice"
    settings = tmp_path / "home" / ".config" / "agent-tui" / "settings.toml"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text("[sandbox]\nenabled = false\n")  # process tracking outside the sandbox (excluded commands)
    with FakeAPI(spawning_script(mark, foreground=not quit_after_call)) as api:
        env = {
            "TMPDIR": str(tmp_path / "tmp"),
            "HOME": str(tmp_path / "home"),
            "XDG_DATA_HOME": str(tmp_path / "data"),
            "XDG_CONFIG_HOME": str(settings.parent.parent),
            "ANTHROPIC_BASE_URL": api.base_url,
            "ANTHROPIC_API_KEY": "sk-test",
            "COLORTERM": "truecolor",
        }
        assignments = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
        command = (
            f"cd {shlex.quote(str(project))} && env {assignments} {shlex.quote(sys.executable)} -m tui.cli.main; "
            f"echo EXITED rc=$?; sleep 120"
        )
        pane.tmux("new", "-d", "-s", "t", "-x", "120", "-y", "40", command)
        pane.wait_text("Ask the agent")
        pane.tmux("send-keys", "-t", "t", "-l", "start it")
        pane.tmux("send-keys", "-t", "t", "Enter")
        pane.wait_text("Allow once")
        pane.wait_for(lambda: approve(pane), "the dialog to take the approval")  # it ignores keys at first
        if quit_after_call:
            pane.wait_text("Done.")
        pane.wait_for(lambda: len(marked(mark)) >= 3, "the command's children")
        assert quit_after_call or [n for n in os.listdir(tmp_path / "tmp") if n.startswith("agent-tui-cwd-")]
        shell = int(pane.tmux("display", "-p", "-t", "t", "#{pane_pid}"))
        if how == "ctrl-c-twice":
            pane.tmux("send-keys", "-t", "t", "C-c")
            pane.tmux("send-keys", "-t", "t", "C-c")
            expected = 0
        else:
            signum = getattr(signal, how)
            os.kill(app_pid(shell), signum)
            expected = 128 + signum
        pane.wait_text("EXITED rc=")
    assert f"EXITED rc={expected}" in pane.text()


def test_kill_9_of_the_app_leaves_no_child_and_no_temp_file(tmp_path: Path, pane: Pane) -> None:
    """A `kill -9` cannot restore the terminal, but the guard still ends every child and removes the temp files."""
    project = tmp_path / "proj"
    project.mkdir()
    (tmp_path / "tmp").mkdir()
    mark = marker()
    try:
        run_and_end(tmp_path, project, pane, "SIGKILL", mark)
        deadline = time.monotonic() + 20
        while (marked(mark) or os.listdir(tmp_path / "tmp")) and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        left = none_left(mark)
    assert left == [], "main left every child of the Bash call running"
    assert [n for n in os.listdir(tmp_path / "tmp") if n.startswith("agent-tui-")] == []
