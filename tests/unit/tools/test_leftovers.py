"""Owner marks, the start-up sweep of dead runs' leftovers, and children that outlive the thread that started them."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.unit.tools.test_bash import alive, wait_gone
from tui.system.leftovers import (
    TRACK_ENV,
    clean_dead_owners,
    owned_names,
    owner_alive,
    owner_mark,
    process_start,
    tagged,
)
from tui.tools.processes import tracker


def test_a_reused_pid_is_not_taken_for_the_owner(tmp_path: Path) -> None:
    me = os.getpid()
    start = process_start(me)
    assert start and owner_mark() == f"{me}.{start}" and owner_alive(owner_mark())
    assert not owner_alive(f"{me}.{start + 1}")  # the same pid, started at another time: another process
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    assert not owner_alive(f"{int(dead.stdout)}.1")


def test_the_sweep_removes_only_what_dead_owners_left(tmp_path: Path) -> None:
    start = process_start(os.getpid())
    reused = f"{os.getpid()}.{start + 1}"  # our pid, another start: its owner is gone
    (tmp_path / f"agent-tui-cwd-o{reused}-a1").write_text("/x")
    (tmp_path / f"agent-tui-sandbox-o{reused}-b2").mkdir()
    (tmp_path / f"agent-tui-sandbox-o{reused}-b2" / "tmp").mkdir()
    mine = tmp_path / f"agent-tui-task-b1-o{owner_mark()}-c3"
    mine.write_text("running")
    (tmp_path / "agent-tui-paste-d4.txt").write_text("kept: no mark")
    (tmp_path / f"agent-tui-cwd-o{reused}-link").symlink_to(tmp_path / "agent-tui-paste-d4.txt")
    removed = clean_dead_owners(str(tmp_path))
    assert sorted(removed) == [f"agent-tui-cwd-o{reused}-a1", f"agent-tui-sandbox-o{reused}-b2"]
    assert sorted(os.listdir(tmp_path)) == sorted(
        [mine.name, "agent-tui-paste-d4.txt", f"agent-tui-cwd-o{reused}-link"]
    )
    assert owned_names(str(tmp_path)) == {owner_mark(): [mine.name], reused: [f"agent-tui-cwd-o{reused}-link"]}


def _environ(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/environ").read_bytes()[-300:]
    except OSError as e:
        return str(e).encode()


def test_the_sweep_ends_the_processes_a_dead_owner_tagged(tmp_path: Path) -> None:
    dead = f"{os.getpid()}.{process_start(os.getpid()) + 1}"  # type: ignore[operator]
    (tmp_path / f"agent-tui-cwd-o{dead}-a1").write_text("/x")
    orphan = subprocess.Popen(["sleep", "300"], env={**os.environ, TRACK_ENV: f"{dead}-3"}, start_new_session=True)
    try:
        assert alive(orphan.pid)
        deadline = time.monotonic() + 30
        while orphan.pid not in tagged(dead) and time.monotonic() < deadline:
            time.sleep(0.05)  # what the sweep looks for: the process's environment, as /proc shows it
        assert orphan.pid in tagged(dead), (orphan.poll(), _environ(orphan.pid))
        clean_dead_owners(str(tmp_path))
        orphan.wait(timeout=30)
    finally:
        orphan.kill()
    assert os.listdir(tmp_path) == []


@pytest.mark.usefixtures("sandbox_off")
def test_a_child_outlives_the_worker_thread_that_started_it(tmp_path: Path) -> None:
    """The parent-death signal follows the thread that forked: children start on one thread that lives on."""
    started: list = []

    def start_and_wait_for_the_exec() -> None:  # its parent-death signal is set by then
        started.append(tracker().spawn(["sleep", "300"], cwd=tmp_path))
        while not Path(f"/proc/{started[0].pid}/cmdline").read_bytes().startswith(b"sleep\0"):
            time.sleep(0.01)

    worker = threading.Thread(target=start_and_wait_for_the_exec)
    worker.start()
    worker.join()
    [child] = started
    try:
        assert not wait_gone([child.pid], seconds=0.5), "the child died with the worker thread"
    finally:
        tracker().kill(child)
    assert wait_gone([child.pid])


def test_a_missing_program_is_an_error_at_spawn_as_before(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        tracker().spawn(["no-such-program-here"], cwd=tmp_path)
    with pytest.raises(FileNotFoundError):
        tracker().spawn(["./missing.sh"], cwd=tmp_path)
    (tmp_path / "plain.txt").write_text("not a program")
    with pytest.raises(PermissionError):
        tracker().spawn(["./plain.txt"], cwd=tmp_path)
