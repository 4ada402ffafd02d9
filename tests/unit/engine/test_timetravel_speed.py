"""The fast paths of time travel: Bash changes seen through inotify, an Edit that flushes the log once, a replay's
first frame that does not wait for the engine's events."""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tui.agent.history.checkpoint_bash import scan_tree, watch_command, watcher
from tui.agent.history.checkpoints import Checkpoints
from tui.agent.history.tree_watch import TreeWatch


def _command(cps: Checkpoints, project: Path, action) -> list[tuple[str, bool, bool]]:
    """Run `action` as a Bash command would; (path, existed before, exists after) of each change recorded."""
    finished = watch_command(cps)
    start = len(cps.changes)
    action()
    finished()
    return sorted(
        (os.path.relpath(c.path, project), c.before is not None, c.after is not None) for c in cps.changes[start:]
    )


def test_bash_changes_are_found_through_inotify_as_a_full_scan_would(tmp_path) -> None:
    project = tmp_path / "p"
    (project / "a").mkdir(parents=True)
    (project / "a" / "x.txt").write_text("x")
    (project / "top.txt").write_text("t")
    cps = Checkpoints(None, "s", project)
    cps.prompt(1, "go", 0)
    assert _command(cps, project, lambda: (project / "top.txt").write_text("t2")) == [("top.txt", True, True)]
    assert isinstance(watcher(cps), TreeWatch)  # the first command started the watch

    def nested() -> None:
        (project / "n" / "m").mkdir(parents=True)
        (project / "n" / "m" / "new.txt").write_text("new")

    assert _command(cps, project, nested) == [("n/m/new.txt", False, True)]
    assert _command(cps, project, lambda: shutil.move(project / "n", project / "b")) == [
        ("b/m/new.txt", False, True),
        ("n/m/new.txt", True, False),
    ]
    (project / "b" / "m" / "later.txt").write_text("a folder that moved is still watched")
    assert _command(cps, project, lambda: shutil.rmtree(project / "b")) == [
        ("b/m/later.txt", True, False),
        ("b/m/new.txt", True, False),
    ]
    assert _command(cps, project, lambda: (project / "a" / "x.txt").chmod(0o600)) == [("a/x.txt", True, True)]
    (project / "top.txt").write_text("changed between commands: not the next command's doing")
    assert _command(cps, project, lambda: None) == []

    def ignored() -> None:
        (project / "node_modules" / "pkg").mkdir(parents=True)
        (project / "node_modules" / "pkg" / "i.js").write_text("x")
        (project / "a" / "link").symlink_to(project / "top.txt")

    assert _command(cps, project, ignored) == []
    assert watcher(cps).sigs == scan_tree(project)  # what the watch knows is what a scan finds


def test_a_command_that_overflows_the_event_queue_is_still_recorded(tmp_path) -> None:
    queue = int(Path("/proc/sys/fs/inotify/max_queued_events").read_text())
    if queue > 40_000:
        pytest.skip("the kernel's inotify queue is too long to overflow quickly")
    project = tmp_path / "p"
    project.mkdir()
    (project / "keep.txt").write_text("k")
    cps = Checkpoints(None, "s", project)
    cps.prompt(1, "go", 0)
    watch_command(cps)()
    count = queue // 3 + 100  # create, modify and close each: more events than the queue holds

    def many() -> None:
        for n in range(count):
            (project / f"f{n}").write_bytes(b"x")
        (project / "keep.txt").write_text("changed")

    changes = _command(cps, project, many)
    assert len(changes) == count + 1 and ("keep.txt", True, True) in changes


def test_an_edit_waits_for_one_flush_only_when_it_is_the_files_first_change_of_the_turn(tmp_path, monkeypatch) -> None:
    main = threading.current_thread()
    flushes: list[str] = []
    for name in ("fsync", "fdatasync"):
        real = getattr(os, name)

        def counted(fd: int, real=real, name=name) -> None:
            if threading.current_thread() is main:
                flushes.append(name)
            real(fd)

        monkeypatch.setattr(os, name, counted)
    store = tmp_path / "cp"
    cps = Checkpoints(store, "s", tmp_path)
    cps.prompt(1, "go", 0)
    path = tmp_path / "big.py"
    versions = [b"".join(b"line %d\n" % n for n in range(50_000))]
    for n in range(3):
        versions.append(versions[-1][: 1000 * (n + 1)] + b"# edit %d\n" % n + versions[-1][1000 * (n + 1) :])
    path.write_bytes(versions[0])
    waits = []
    for n, (old, new) in enumerate(itertools.pairwise(versions)):
        if n == 2:
            cps.prompt(2, "again", 0)  # a new turn: its first change of the file is flushed before the write
        flushes.clear()
        cps.before_write(path, old, new)
        waits.append(flushes[:])
        path.write_bytes(new)
        cps.wrote(path)
    # the first Edit stores the whole file (fsynced, with its new folder) and flushes the log; the second, in the
    # same turn, waits for no flush (the turn's first change protects the file); the third, a new turn's, for the log
    assert waits[0][0] == "fsync" and waits[0][-1] == "fdatasync" and waits[1:] == [[], ["fdatasync"]]
    monkeypatch.undo()
    after = cps.changes[-1].after
    assert not (store / "objects" / after[:2] / after[2:]).exists()  # a small delta: in the log record only
    fresh = Checkpoints(store, "s", tmp_path)
    assert [fresh.blobs.get(c.after) for c in fresh.changes] == versions[1:]
    assert [fresh.blobs.get(c.before) for c in fresh.changes] == versions[:-1]


def test_a_new_version_is_hashed_from_its_change_on_and_named_as_a_whole_hash_would(tmp_path) -> None:
    from tui.agent.history.blobstore import STATE_STEP, BlobStore, blob_hash

    store = BlobStore(tmp_path)
    versions = [os.urandom(5 * STATE_STEP + 17)]
    for at in (0, 1, STATE_STEP - 1, STATE_STEP, 3 * STATE_STEP + 5, len(versions[0])):
        versions.append(versions[-1][:at] + b"edit" + versions[-1][at:])
    names = [store.put(versions[0])]
    for old, new in itertools.pairwise(versions):
        names.append(store.put(new, old, names[-1]))
        assert len(store._states[names[-1]]) == len(new) // STATE_STEP + 1  # resumed, then kept for the next one
    assert names == [blob_hash(v) for v in versions] and [store.get(n) for n in names] == versions


def test_the_replay_app_starts_without_the_engine_events_module() -> None:
    code = (
        "import sys, tui.ui.replay_app\n"
        "from tui.agent.history.replay_check import check_replayable\n"
        "print(sorted(m for m in ('tui.agent.events', 'tui.agent.history.replay') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "[]"  # loaded with the recorded events, after the first frame
