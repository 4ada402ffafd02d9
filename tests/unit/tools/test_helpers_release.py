"""The process's helpers for its children (the spawn thread and the kill -9 guard) end when the last child has
ended and the owner closes: nothing is left behind, and the next command starts them again."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from tests.fakeapi import FakeAPI
from tests.fakeapi.script import reply, tool_use
from tests.integration.helpers import make_session
from tui.tools import parent_death, processes
from tui.tools.base import SessionState, ToolContext
from tui.tools.bash import BashTool
from tui.tools.processes import tracker


@pytest.fixture(autouse=True)
def own_tracker(monkeypatch: pytest.MonkeyPatch) -> None:
    """A tracker of this test's own: what an earlier test in the same process still tracks (a temp file, a
    command its session left running) must not keep the helpers alive here."""
    monkeypatch.setattr(processes, "_tracker", None)


def _bash_off_the_main_thread(project: Path, command: str) -> None:
    """As the app runs its commands: on a worker thread, so the spawn thread is used."""
    ctx = ToolContext(project_dir=project, state=SessionState(project_dir=project))
    worker = threading.Thread(target=lambda: BashTool().run({"command": command, "timeout": 20000}, ctx))
    worker.start()
    worker.join()


def _helpers() -> tuple[int | None, int | None, list[threading.Thread]]:
    spawners = [t for t in threading.enumerate() if t.name == "agent-tui-spawner"]
    return parent_death.guard_pid, parent_death._guard_fd, spawners


def _is_open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


def _is_our_child(pid: int) -> bool:
    """`pid` is a child of this process that was not reaped (running or a zombie)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return int(stat.rsplit(")", 1)[1].split()[1]) == os.getpid()


@pytest.mark.usefixtures("sandbox_off")
def test_releasing_ends_the_spawn_thread_and_the_guard_and_the_next_command_starts_them(tmp_path: Path) -> None:
    _bash_off_the_main_thread(tmp_path, "true")
    guard, fd, spawners = _helpers()
    assert guard is not None and fd is not None and fd >= 0 and len(spawners) == 1

    assert tracker().release_helpers()
    assert _helpers() == (None, None, [])
    assert not spawners[0].is_alive()
    assert not _is_open(fd)  # the guard's pipe
    assert not _is_our_child(guard)  # the guard exited and was reaped

    _bash_off_the_main_thread(tmp_path, "echo again > again.txt")
    assert (tmp_path / "again.txt").read_text() == "again\n"
    assert _helpers()[0] is not None and len(_helpers()[2]) == 1
    assert tracker().release_helpers()


@pytest.mark.usefixtures("sandbox_off")
def test_a_running_command_keeps_the_helpers(tmp_path: Path) -> None:
    _bash_off_the_main_thread(tmp_path, "true")
    running = parent_death.on_spawn_thread(lambda: tracker().spawn(["sleep", "30"]))  # from the main thread
    try:
        assert not tracker().release_helpers()
        assert _helpers()[0] is not None and len(_helpers()[2]) == 1
    finally:
        tracker().kill(running, grace=0.5)
    assert tracker().release_helpers()
    assert _helpers() == (None, None, [])


@pytest.mark.usefixtures("sandbox_off")
def test_closing_a_session_that_ran_bash_leaves_no_helper_behind(monkeypatch, tmp_path: Path) -> None:
    script = [
        reply("Running.", tool_use("Bash", {"command": "echo hi"}), stop_reason="tool_use"),
        reply("Done."),
    ]
    with FakeAPI(script) as api:
        session, _ = make_session(
            monkeypatch, api.base_url, tmp_path, permission_mode="bypassPermissions", transcript=False
        )
        session.run_turn("run it")
        assert api.errors == []
    _bash_off_the_main_thread(tmp_path, "true")  # as a turn on the app's worker thread would
    guard, fd, spawners = _helpers()
    assert guard is not None and fd is not None and spawners
    session.close()
    assert _helpers() == (None, None, [])
    assert not _is_our_child(guard) and not _is_open(fd)
