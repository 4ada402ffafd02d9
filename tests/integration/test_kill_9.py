"""`kill -9` of `agent-tui -p` mid-command: no child, background task, temp file or sandbox folder outlives it.

The guard ends them at once; when the guard dies too, each direct child's parent-death signal
ends it (a sandboxed command's whole PID namespace with it), and the next start ends the rest
and removes the temp files and folders.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.fakeapi import FakeAPI
from tests.fakeapi.script import reply, text, tool_use
from tests.integration.test_exits import env, marked, marker, none_left, start, temp_files  # noqa: F401

LEFT_BEHIND = "sleep {m} & setsid sleep {m} & (nohup sleep {m} > /dev/null 2>&1 &) & disown"


def script(mark: str) -> list:
    """A background task with a child of its own, then a command that leaves children and waits in the foreground."""
    return [
        reply(
            tool_use("Bash", {"command": f"sleep {mark} & sleep {mark}", "run_in_background": True}),
            stop_reason="tool_use",
        ),
        reply(
            tool_use("Bash", {"command": LEFT_BEHIND.format(m=mark) + f"; echo started; sleep {mark}"}),
            stop_reason="tool_use",
        ),
        reply(text("Done."), stop_reason="end_turn"),
    ]


def eventually(check: Callable[[], bool], seconds: float = 20) -> bool:
    """Whether `check()` holds within `seconds` (a bound that proves it happens, not how fast)."""
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def guard_of(pid: int) -> int | None:
    """The guard process of the agent-tui process `pid`."""
    needle = f"--guard\0{pid}.".encode()
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/cmdline", "rb") as f:
                    if needle in f.read():
                        return int(name)
            except OSError:
                continue
    return None


def sandbox_off() -> None:
    """The user settings turn the sandbox off (commands run as plain children)."""
    settings = Path(os.environ["XDG_CONFIG_HOME"]) / "agent-tui" / "settings.toml"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text("[sandbox]\nenabled = false\n")


def running_mid_command(tmp_path: Path, env: dict[str, str], api: FakeAPI, mark: str) -> subprocess.Popen[str]:
    """`-p` started, its commands running: the task's two processes, and the foreground's five."""
    proc = start(
        ["start it", "--output-format", "stream-json", "--include-partial-messages"], tmp_path, env, api.base_url
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        if json.loads(line)["type"] == "tool_output" and "started" in line:
            break
    assert eventually(lambda: len(marked(mark)) >= 6), f"the commands did not start: {marked(mark)}"
    return proc


@pytest.mark.parametrize("sandbox", [True, False])
def test_kill_9_leaves_no_child_task_or_temp_file(tmp_path: Path, env: dict[str, str], sandbox: bool) -> None:
    mark = marker()
    if not sandbox:
        sandbox_off()
    with FakeAPI(script(mark)) as api:
        proc = running_mid_command(tmp_path, env, api, mark)
        made = temp_files(env)
        proc.kill()
        proc.communicate(timeout=30)
    try:
        assert any(n.startswith("agent-tui-task-") for n in made) and any(n.startswith("agent-tui-cwd-") for n in made)
        assert not sandbox or any(n.startswith("agent-tui-sandbox-") for n in made)
        assert eventually(lambda: not marked(mark)), f"main left every one of them: {marked(mark)}"
        assert eventually(lambda: temp_files(env) == []), temp_files(env)
    finally:
        assert none_left(mark) == []


def test_when_the_guard_dies_too_direct_children_die_and_the_next_start_clears_the_rest(
    tmp_path: Path, env: dict[str, str]
) -> None:
    mark = marker()
    sandbox_off()  # contained, a command's namespace ends with its PID 1: nothing would be left for the next start
    with FakeAPI(script(mark)) as api:
        proc = running_mid_command(tmp_path, env, api, mark)
        guard = guard_of(proc.pid)
        if guard is not None:  # (main had none)
            os.kill(guard, signal.SIGKILL)
        proc.kill()
        proc.communicate(timeout=30)
    try:
        shells = lambda: [p for p in marked(mark) if _cmdline(p).startswith(b"/bin/bash")]  # noqa: E731
        assert eventually(lambda: shells() == []), "a direct child outlived agent-tui (no parent-death signal)"
        left_over = marked(mark)
        assert left_over and temp_files(env)  # grandchildren and temp files: for the next start
        nxt = subprocess.run(
            [sys.executable, "-m", "tui.cli.main", "-p", "hello", "--offline"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert nxt.returncode == 0, nxt.stderr
        assert temp_files(env) == []
        assert eventually(lambda: not marked(mark)), marked(mark)
    finally:
        none_left(mark)


def _cmdline(pid: int) -> bytes:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read()
    except OSError:
        return b""
