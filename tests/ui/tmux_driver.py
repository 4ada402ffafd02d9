"""Drive the real app in a real terminal: tmux on a private server socket, polled (never slept) for what it shows."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

AGENT_TUI = str(Path(sys.executable).with_name("agent-tui"))

needs_tmux = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


class Tmux:
    """One tmux server (its own socket) running one command in a pane of a fixed size."""

    def __init__(self, cwd: Path, home: Path, width: int = 140, height: int = 45) -> None:
        self.socket = f"agent-tui-test-{uuid.uuid4().hex[:10]}"
        self.cwd, self.home, self.width, self.height = cwd, home, width, height

    def tmux(self, *args: str, text_input: bytes | None = None) -> str:
        done = subprocess.run(["tmux", "-L", self.socket, *args], input=text_input, capture_output=True, timeout=30)
        if done.returncode != 0:
            raise AssertionError(f"tmux {args[0]} failed: {done.stderr.decode(errors='replace').strip()}")
        return done.stdout.decode(errors="replace")

    def start(self, *command: str, env: dict[str, str] | None = None) -> None:
        # COLUMNS/LINES from the test's environment would override the pane's size in the app
        env_args = [
            a
            for k, v in {"HOME": str(self.home), "COLORTERM": "truecolor", **(env or {})}.items()
            for a in ("-e", f"{k}={v}")
        ]
        self.tmux(
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-s",
            "t",
            "-x",
            str(self.width),
            "-y",
            str(self.height),
            "-c",
            str(self.cwd),
            *env_args,
            "env",
            "-u",
            "COLUMNS",
            "-u",
            "LINES",
            *command,
        )

    def start_app(self, *args: str, env: dict[str, str] | None = None) -> None:
        """agent-tui in the pane, waited for until its prompt is drawn."""
        self.start(AGENT_TUI, *args, env=env)
        self.wait_for(lambda screen: "Ask the agent" in screen, "the prompt")

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "t")

    def keys(self, *keys: str, literal: bool = False) -> None:
        """`send-keys` in one command: tmux writes them to the terminal together."""
        self.tmux("send-keys", "-t", "t", *(["-l"] if literal else []), *keys)

    def paste(self, text: str, *, bracketed: bool) -> None:
        """Paste `text` as a terminal does: with bracketed-paste markers (-p) or as plain typed-in bytes."""
        self.tmux("load-buffer", "-b", "p", "-", text_input=text.encode())
        self.tmux("paste-buffer", "-b", "p", "-t", "t", *(["-p"] if bracketed else []))

    def pid(self) -> int:
        return int(self.tmux("display", "-p", "-t", "t", "#{pane_pid}").strip())

    def wait_for(self, predicate: Callable[[str], bool], what: str, timeout: float = 60.0) -> str:
        """Poll the pane until `predicate(screen)` holds; fail naming `what` (with the screen) after `timeout`."""
        start = time.monotonic()
        seen: list[tuple[float, str]] = []  # each different screen while waiting, to show what happened on a failure
        while True:
            screen = self.screen()
            if predicate(screen):
                return screen
            if not seen or seen[-1][1] != screen:
                seen.append((time.monotonic() - start, screen))
            if time.monotonic() - start > timeout:
                earlier = "".join(f"\n--- at {at:.2f} s:\n{shown}" for at, shown in seen[-6:-1])
                raise AssertionError(
                    f"timed out waiting for {what}; the screens before{earlier or ' (none)'}\n--- the screen:\n{screen}"
                )
            time.sleep(0.05)

    def answer(self, key: str, answered: Callable[[str], bool], tries: int = 20) -> str:
        """Press `key` until the dialog on screen takes it (`answered(screen)`); the screen after it.

        A dialog drops a key that comes before its first paint or in its grace time after it, counted in the app,
        which on a loaded machine can run well behind what tmux already shows: a fixed wait is not enough. The
        presses are 2 s apart, past the grace time, so the next one is never taken for typing.
        """
        for _ in range(tries):
            self.keys(key)
            try:
                return self.wait_for(answered, f"{key!r} to answer the dialog", timeout=2.0)
            except AssertionError:
                continue
        raise AssertionError(f"{key!r} never answered the dialog:\n{self.screen()}")

    def kill(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True, timeout=30)


@pytest.fixture
def tmux_app(tmp_path: Path, demo_project: Path):
    """A Tmux on the demo project with its own HOME; the server is killed afterwards."""
    home = tmp_path / "home"
    home.mkdir()
    term = Tmux(demo_project, home)
    yield term
    term.kill()


def rss_kib(pid: int) -> int:
    """Resident memory of a process and its children, from /proc (KiB)."""
    total = 0
    for line in subprocess.run(
        ["ps", "-o", "rss=", "--ppid", str(pid), "-p", str(pid)], capture_output=True, text=True
    ).stdout.split():
        total += int(line)
    return total
