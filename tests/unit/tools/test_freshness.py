"""The freshness guard and the file watcher."""

from __future__ import annotations

import os
import queue
import time
from pathlib import Path

import pytest

from tui.tools.base import ToolContext, ToolError
from tui.tools.edit import EditTool
from tui.tools.freshness import FileWatcher
from tui.tools.read import ReadTool
from tui.tools.write import WriteTool

read, edit, write = ReadTool(), EditTool(), WriteTool()


def test_edit_of_unread_file_is_refused(project: Path, ctx: ToolContext) -> None:
    (project / "a.py").write_text("x = 1\n")
    with pytest.raises(ToolError, match=r"has not been read.*Read it first"):
        edit.run({"file_path": "a.py", "old_string": "x = 1", "new_string": "x = 2"}, ctx)
    assert (project / "a.py").read_text() == "x = 1\n"


def test_write_over_unread_file_is_refused(project: Path, ctx: ToolContext) -> None:
    (project / "a.py").write_text("keep me\n")
    with pytest.raises(ToolError, match="Read it first"):
        write.run({"file_path": "a.py", "content": "clobbered"}, ctx)
    assert (project / "a.py").read_text() == "keep me\n"


def test_file_changed_outside_between_read_and_edit(project: Path, ctx: ToolContext) -> None:
    path = project / "a.py"
    path.write_text("a = 1\nb = 2\nb = 2\n")
    read.run({"file_path": "a.py"}, ctx)
    path.write_text("a = 1\nb = 2\nb = 2\nuser_line = 3\n")  # the user edits the file
    with pytest.raises(ToolError, match=r"modified since you last read it.*Read it again"):
        edit.run({"file_path": "a.py", "old_string": "b = 2", "new_string": "b = 5", "replace_all": True}, ctx)
    with pytest.raises(ToolError, match="modified since"):
        write.run({"file_path": "a.py", "content": "x"}, ctx)
    # an old_string that still matches exactly once is safe: the edit goes through
    edit.run({"file_path": "a.py", "old_string": "a = 1", "new_string": "a = 9"}, ctx)
    assert path.read_text() == "a = 9\nb = 2\nb = 2\nuser_line = 3\n"


def test_touch_without_change_is_not_stale(project: Path, ctx: ToolContext) -> None:
    path = project / "a.py"
    path.write_text("a\n")
    read.run({"file_path": "a.py"}, ctx)
    os.utime(path, (time.time() + 100, time.time() + 100))  # a linter touched it: hash still equal
    write.run({"file_path": "a.py", "content": "b\n"}, ctx)
    assert path.read_text() == "b\n"


def test_successful_edit_updates_the_hash(project: Path, ctx: ToolContext) -> None:
    path = project / "a.py"
    path.write_text("one\ntwo\n")
    read.run({"file_path": "a.py"}, ctx)
    edit.run({"file_path": "a.py", "old_string": "one", "new_string": "1"}, ctx)
    edit.run({"file_path": "a.py", "old_string": "two", "new_string": "2"}, ctx)  # no re-Read needed
    write.run({"file_path": "a.py", "content": "done\n"}, ctx)
    assert path.read_text() == "done\n"


def test_new_file_needs_no_read(project: Path, ctx: ToolContext) -> None:
    write.run({"file_path": "fresh.txt", "content": "x"}, ctx)
    write.run({"file_path": "fresh.txt", "content": "y"}, ctx)  # our own write counts as known
    assert (project / "fresh.txt").read_text() == "y"


@pytest.mark.timeout(10)
def test_watcher_reports_outside_change_but_not_own_writes(project: Path, ctx: ToolContext) -> None:
    path = project / "w.py"
    path.write_text("v1\n")
    read.run({"file_path": "w.py"}, ctx)
    changes: queue.Queue[str] = queue.Queue()
    watcher = FileWatcher(ctx.state, changes.put)
    watcher.start()
    try:
        assert watcher.ready.wait(5)
        write.run({"file_path": "w.py", "content": "v2 by agent\n"}, ctx)
        path.write_text("v3 by user\n")
        assert changes.get(timeout=5) == str(path)
        assert ctx.state.read_hashes[str(path)] != "", "the record is not refreshed silently"
        with pytest.raises(ToolError, match="modified since"):
            write.run({"file_path": "w.py", "content": "v4"}, ctx)
        assert changes.empty()
    finally:
        watcher.stop()


def test_watcher_check_reports_each_version_once(project: Path, ctx: ToolContext) -> None:
    path = project / "a.txt"
    path.write_text("1\n")
    read.run({"file_path": "a.txt"}, ctx)
    seen: list[str] = []
    watcher = FileWatcher(ctx.state, seen.append)
    watcher.check({str(path)})
    assert seen == []
    path.write_text("2\n")
    watcher.check({str(path)})
    watcher.check({str(path)})
    assert seen == [str(path)]
    path.unlink()
    watcher.check({str(path)})
    assert seen == [str(path), str(path)]
