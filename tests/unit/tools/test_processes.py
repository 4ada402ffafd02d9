"""Process tracking: children that leave the command's group or session are still found and killed."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.unit.tools.test_bash import alive, wait_gone
from tui.tools.base import ToolContext, ToolInterrupted
from tui.tools.bash import BashTool
from tui.tools.processes import ProcessTracker, tracker

bash = BashTool()


def read_pid(path: Path, seconds: float = 5.0) -> int:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        text = path.read_text().strip() if path.exists() else ""
        if text:
            return int(text)
        time.sleep(0.02)
    raise AssertionError(f"{path} was never written")


@pytest.mark.usefixtures("sandbox_off")  # process-tree tracking outside the sandbox
def test_timeout_kills_a_child_that_left_the_group_with_setsid(tmp_path: Path, ctx: ToolContext) -> None:
    pid_file = tmp_path / "setsid.pid"
    result = bash.run({"command": f"setsid sleep 300 & echo $! > {pid_file}; sleep 60", "timeout": 2000}, ctx)
    assert result.meta["timed_out"]
    assert wait_gone([read_pid(pid_file)]), "a setsid child must not outlive a timed-out call"


@pytest.mark.usefixtures("sandbox_off")  # process-tree tracking outside the sandbox
def test_interrupt_kills_a_double_forked_daemon(tmp_path: Path, ctx: ToolContext) -> None:
    pid_file = tmp_path / "daemon.pid"
    ready = threading.Event()
    ctx.emit_output = lambda chunk, stream="stdout": ready.set() if "ready" in chunk else None
    command = (
        f"(setsid nohup sleep 300 > /dev/null 2>&1 & echo $! > {pid_file}) & disown; "
        f"until [ -s {pid_file} ]; do sleep 0.01; done; echo ready; sleep 300"
    )
    canceller = threading.Thread(target=lambda: ready.wait(10) and ctx.cancel.set())
    canceller.start()
    with pytest.raises(ToolInterrupted):
        bash.run({"command": command}, ctx)
    canceller.join()
    assert wait_gone([read_pid(pid_file)]), "a double-forked, setsid, nohup child must not outlive an interrupt"


@pytest.mark.usefixtures("sandbox_off")  # process-tree tracking outside the sandbox
def test_background_child_runs_on_until_cleanup(tmp_path: Path, ctx: ToolContext) -> None:
    result = bash.run({"command": "sleep 300 > /dev/null & echo $!"}, ctx)
    pid = int(result.text().splitlines()[0])
    assert not result.is_error and alive(pid)  # a `cmd &` keeps running while agent-tui runs
    assert pid in tracker().alive()
    tracker().cleanup()
    assert wait_gone([pid]) and pid not in tracker().alive()


def test_cleanup_removes_temp_files_left_by_a_running_call(tmp_path: Path) -> None:
    own = ProcessTracker()
    path = own.temp_file("agent-tui-cwd-")
    assert Path(path).exists()
    own.cleanup()
    assert not Path(path).exists()


def test_spawn_tracks_kills_and_forgets_a_tree(tmp_path: Path) -> None:
    own = ProcessTracker()
    pid_file = tmp_path / "pid"
    tracked = own.spawn(["/bin/bash", "-c", f"setsid sleep 300 & echo $! > {pid_file}; wait"])
    child = read_pid(pid_file)
    assert set(own.alive(tracked)) >= {tracked.pid, child}
    own.kill(tracked, grace=0.5)
    assert wait_gone([tracked.pid, child]) and own.alive() == []


def test_a_subreaper_kills_an_orphan_that_cleared_its_environment(tmp_path: Path) -> None:
    """`env -i` drops the tag and `setsid` + a double fork leave the tree: the subreaper still finds it."""
    pid_file = tmp_path / "orphan.pid"
    script = f"""
import sys, time
from tui.tools.processes import become_subreaper, tracker
assert become_subreaper()
t = tracker().spawn(["/bin/bash", "-c", "env -i /bin/sh -c '(setsid sleep 300 & echo $! > {pid_file})'"])
t.popen.wait()
time.sleep(0.2)
tracker().release(t)
tracker().cleanup(grace=0.5)
"""
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert wait_gone([read_pid(pid_file)]), "an adopted orphan must be killed at exit"


def test_timeout_keeps_the_output_so_far_and_says_so_in_one_sentence(ctx: ToolContext) -> None:
    result = bash.run({"command": "echo partial; setsid sleep 60", "timeout": 1500}, ctx)
    lines = result.text().splitlines()
    assert lines[0] == "partial"
    assert lines[1] == "Command timed out after 1.5 s; it and its child processes were killed."
    assert result.is_error and result.meta["timed_out"]


def test_a_later_call_forgets_a_background_child_that_has_ended(tmp_path: Path) -> None:
    own = ProcessTracker()
    first = own.spawn(["/bin/bash", "-c", "sleep 0.3 > /dev/null & echo started"])
    first.popen.wait()
    assert own.release(first)  # the sleep still runs: the tree stays tracked
    time.sleep(0.5)
    second = own.spawn(["/bin/true"])
    second.popen.wait()
    assert own.release(second) == []
    assert own.alive() == [] and own.trees == []
