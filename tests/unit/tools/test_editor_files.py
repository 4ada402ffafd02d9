"""`SessionState.editor`: Read, Edit and Write through an editor's buffers (an ACP client's fs/*) when one is set."""

from __future__ import annotations

import threading
from pathlib import Path

from tui.tools.base import ToolContext
from tui.tools.edit import EditTool
from tui.tools.read import ReadTool
from tui.tools.write import WriteTool


class Buffers:
    """An editor holding `held` (path -> text); `accept` says whether it takes writes."""

    def __init__(self, held: dict[str, str], accept: bool = True) -> None:
        self.held, self.accept = held, accept
        self.writes: list[tuple[str, bytes | None, bytes]] = []

    def read(self, path: Path, cancel: threading.Event) -> bytes | None:
        text = self.held.get(str(path))
        return None if text is None else text.encode()

    def write(self, path: Path, previous: bytes | None, data: bytes, cancel: threading.Event) -> bool:
        self.writes.append((str(path), previous, data))
        if self.accept:
            self.held[str(path)] = data.decode()
        return self.accept


def test_read_and_edit_see_the_unsaved_buffer_and_write_through_the_editor(project: Path, ctx: ToolContext) -> None:
    path = project / "a.py"
    path.write_text("x = 1\n")
    ctx.state.editor = editor = Buffers({str(path): "x = 1\ny = 2  # unsaved\n"})
    assert "2\ty = 2  # unsaved" in ReadTool().run({"file_path": "a.py"}, ctx).text()
    EditTool().run({"file_path": "a.py", "old_string": "y = 2", "new_string": "y = 3"}, ctx)
    assert editor.writes == [(str(path), b"x = 1\ny = 2  # unsaved\n", b"x = 1\ny = 3  # unsaved\n")]
    assert path.read_text() == "x = 1\n"  # the editor saves it (or not): agent-tui did not write the disk


def test_an_editor_that_declines_a_write_sees_it_and_the_disk_gets_it(project: Path, ctx: ToolContext) -> None:
    ctx.state.editor = editor = Buffers({}, accept=False)
    WriteTool().run({"file_path": "new.txt", "content": "hello\n"}, ctx)
    assert (project / "new.txt").read_text() == "hello\n"
    assert editor.writes == [(str(project / "new.txt"), None, b"hello\n")]
