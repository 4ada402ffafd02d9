"""Edit and Write: exact matches, counts, snippets, line endings, encodings, backups, previews."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from tests.unit.tools.conftest import backups
from tui.tools.base import FatalToolError, ToolContext, ToolError
from tui.tools.edit import EditTool
from tui.tools.read import ReadTool
from tui.tools.write import WriteTool

read, edit, write = ReadTool(), EditTool(), WriteTool()


def make(project: Path, ctx: ToolContext, name: str, data: bytes) -> Path:
    """Create a file and Read it, as the model would before editing."""
    path = project / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    read.run({"file_path": name}, ctx)
    return path


def test_edit_replaces_unique_match_and_shows_numbered_snippet(project: Path, ctx: ToolContext) -> None:
    path = make(project, ctx, "a.py", b"def add(a, b):\n    # TODO: validate inputs\n    return a + b\n")
    result = edit.run(
        {"file_path": "a.py", "old_string": "# TODO: validate inputs", "new_string": "# checked by caller"}, ctx
    )
    assert path.read_text() == "def add(a, b):\n    # checked by caller\n    return a + b\n"
    assert not result.is_error
    text = result.text()
    assert "has been updated successfully (1 replacement)" in text
    assert "2\t    # checked by caller" in text and "1\tdef add(a, b):" in text
    assert result.meta["path"] == "a.py" and "+    # checked by caller" in result.meta["diff"]


def test_edit_multiple_matches_needs_replace_all(project: Path, ctx: ToolContext) -> None:
    path = make(project, ctx, "m.py", b"x = 1\nx = 1\nx = 1\n")
    with pytest.raises(ToolError, match=r"Found 3 matches.*replace_all"):
        edit.run({"file_path": "m.py", "old_string": "x = 1", "new_string": "x = 2"}, ctx)
    result = edit.run({"file_path": "m.py", "old_string": "x = 1", "new_string": "x = 2", "replace_all": True}, ctx)
    assert path.read_text() == "x = 2\nx = 2\nx = 2\n"
    assert "3 replacements" in result.text()


def test_edit_not_found_says_what_to_do(project: Path, ctx: ToolContext) -> None:
    make(project, ctx, "a.py", b"hello\n")
    with pytest.raises(ToolError, match=r"not found.*Read the file again"):
        edit.run({"file_path": "a.py", "old_string": "goodbye", "new_string": "x"}, ctx)
    with pytest.raises(ToolError, match="line-number prefixes"):
        edit.run({"file_path": "a.py", "old_string": "1\thello", "new_string": "x"}, ctx)


def test_edit_identical_strings_is_an_error(project: Path, ctx: ToolContext) -> None:
    make(project, ctx, "a.py", b"hello\n")
    with pytest.raises(ToolError, match="exactly the same"):
        edit.run({"file_path": "a.py", "old_string": "hello", "new_string": "hello"}, ctx)


def test_edit_keeps_crlf_line_endings(project: Path, ctx: ToolContext) -> None:
    path = make(project, ctx, "w.txt", b"one\r\ntwo\r\nthree\r\n")
    edit.run({"file_path": "w.txt", "old_string": "one\ntwo", "new_string": "uno\ndos\ndos bis"}, ctx)
    assert path.read_bytes() == b"uno\r\ndos\r\ndos bis\r\nthree\r\n"
    edit.run({"file_path": "w.txt", "old_string": "three", "new_string": "tres\nquatro"}, ctx)
    assert path.read_bytes() == b"uno\r\ndos\r\ndos bis\r\ntres\r\nquatro\r\n"


def test_edit_keeps_latin1_encoding(project: Path, ctx: ToolContext) -> None:
    path = make(project, ctx, "l.txt", "café = 1\nnaïve = 2\n".encode("latin-1"))
    edit.run({"file_path": "l.txt", "old_string": "naïve = 2", "new_string": "naïve = 3 # déjà"}, ctx)
    assert path.read_bytes() == "café = 1\nnaïve = 3 # déjà\n".encode("latin-1")
    with pytest.raises(ToolError, match="cannot hold"):
        edit.run({"file_path": "l.txt", "old_string": "= 1", "new_string": "= '€'"}, ctx)


def test_edit_keeps_stray_bytes_of_mostly_utf8_file(project: Path, ctx: ToolContext) -> None:
    path = make(project, ctx, "mix.txt", "héllo\n".encode() + b"bad \xff byte\nend\n")
    edit.run({"file_path": "mix.txt", "old_string": "end", "new_string": "fin"}, ctx)
    assert path.read_bytes() == "héllo\n".encode() + b"bad \xff byte\nfin\n"


def test_edit_keeps_utf8_bom_and_utf16(project: Path, ctx: ToolContext) -> None:
    bom = make(project, ctx, "bom.txt", b"\xef\xbb\xbfkey=1\n")
    edit.run({"file_path": "bom.txt", "old_string": "key=1", "new_string": "key=2"}, ctx)
    assert bom.read_bytes() == b"\xef\xbb\xbfkey=2\n"
    u16 = make(project, ctx, "u16.txt", "a\r\nb\r\n".encode("utf-16-le").join([b"\xff\xfe", b""]))
    edit.run({"file_path": "u16.txt", "old_string": "b", "new_string": "c\nd"}, ctx)
    assert u16.read_bytes() == b"\xff\xfe" + "a\r\nc\r\nd\r\n".encode("utf-16-le")


def test_edit_with_empty_old_string_creates_missing_file(project: Path, ctx: ToolContext) -> None:
    result = edit.run({"file_path": "pkg/new.py", "old_string": "", "new_string": "print('hi')\n"}, ctx)
    assert (project / "pkg/new.py").read_text() == "print('hi')\n"
    assert "created" in result.text()
    assert backups(ctx)[-1] == (str(project / "pkg/new.py"), None)


def test_edit_empty_old_string_on_non_empty_file_is_refused(project: Path, ctx: ToolContext) -> None:
    make(project, ctx, "a.py", b"content\n")
    with pytest.raises(ToolError, match="not empty"):
        edit.run({"file_path": "a.py", "old_string": "", "new_string": "x"}, ctx)


def test_edit_missing_file_suggests_names(project: Path, ctx: ToolContext) -> None:
    (project / "main.py").write_text("x\n")
    with pytest.raises(ToolError, match=r"main.py"):
        edit.run({"file_path": "mian.py", "old_string": "x", "new_string": "y"}, ctx)


def test_edit_checkpoints_the_previous_content_and_mode(project: Path, ctx: ToolContext) -> None:
    path = make(project, ctx, "a.py", b"old\n")
    path.chmod(0o751)
    edit.run({"file_path": "a.py", "old_string": "old", "new_string": "new"}, ctx)
    assert backups(ctx) == [(str(path), b"old\n")]
    assert ctx.state.checkpoint.changes[0].mode_before == 0o751


def test_edit_preview_is_a_diff_and_touches_nothing(project: Path, ctx: ToolContext) -> None:
    path = make(project, ctx, "a.py", b"a\nb\nc\n")
    preview = edit.preview({"file_path": "a.py", "old_string": "b", "new_string": "B"}, ctx)
    assert preview["kind"] == "diff" and preview["path"] == "a.py"
    assert "-b\n+B\n" in preview["text"] and preview["text"].startswith("--- a/a.py\n+++ b/a.py\n")
    assert path.read_bytes() == b"a\nb\nc\n" and backups(ctx) == []
    failing = edit.preview({"file_path": "a.py", "old_string": "zzz", "new_string": "B"}, ctx)
    assert failing["kind"] == "text" and "not found" in failing["text"]


def test_write_creates_parents_and_reports(project: Path, ctx: ToolContext) -> None:
    result = write.run({"file_path": "deep/er/f.txt", "content": "hello\n"}, ctx)
    assert (project / "deep/er/f.txt").read_text() == "hello\n"
    assert result.text() == f"File created successfully at: {project / 'deep/er/f.txt'}"
    assert backups(ctx) == [(str(project / "deep/er/f.txt"), None)]


def test_write_overwrites_read_file_and_records_backup(project: Path, ctx: ToolContext) -> None:
    path = make(project, ctx, "f.txt", b"before\n")
    result = write.run({"file_path": "f.txt", "content": "after\n"}, ctx)
    assert path.read_text() == "after\n"
    assert "has been updated" in result.text()
    assert backups(ctx) == [(str(path), b"before\n")]


def test_write_preview_of_new_file_is_all_added(project: Path, ctx: ToolContext) -> None:
    preview = write.preview({"file_path": "n.txt", "content": "a\nb\n"}, ctx)
    assert preview == {"kind": "diff", "path": "n.txt", "text": "--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+a\n+b\n"}
    assert not (project / "n.txt").exists()


def test_write_onto_directory_is_an_error(project: Path, ctx: ToolContext) -> None:
    (project / "d").mkdir()
    with pytest.raises(ToolError, match="directory"):
        write.run({"file_path": "d", "content": "x"}, ctx)


def test_disk_full_is_fatal(project: Path, ctx: ToolContext, monkeypatch: pytest.MonkeyPatch) -> None:
    def full(*_args: object, **_kwargs: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("os.fdopen", full)  # the write itself fails as on a full disk
    with pytest.raises(FatalToolError, match="No space left"):
        write.run({"file_path": "f.txt", "content": "x"}, ctx)


@pytest.mark.parametrize(
    "tool_input",
    [
        {"file_path": "a.py", "old_string": 1, "new_string": "x"},
        {"file_path": None, "old_string": "a", "new_string": "x"},
        {"file_path": "a.py", "old_string": "a", "new_string": "x", "replace_all": "maybe"},
        {"file_path": "a\x00.py", "old_string": "a", "new_string": "x"},
    ],
)
def test_edit_hostile_inputs(project: Path, ctx: ToolContext, tool_input: dict) -> None:
    make(project, ctx, "a.py", b"a\n")
    with pytest.raises(ToolError):
        edit.run(tool_input, ctx)
    assert (project / "a.py").read_bytes() == b"a\n"


def test_labels(project: Path, ctx: ToolContext) -> None:
    assert edit.label({"file_path": "a.py"}, ctx) == "Edit a.py"
    assert write.label({"file_path": str(project / "x/y.txt")}, ctx) == "Write x/y.txt"
    assert edit.permission_target({"file_path": "a.py"}, ctx) == str(project / "a.py")
    assert not edit.is_concurrency_safe({}) and edit.kind == "edit" and write.kind == "edit"
