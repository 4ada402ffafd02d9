"""File names with newlines or bytes that are not UTF-8: one entry each, shown escaped, opened as shown."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tui.tools.base import ToolContext
from tui.tools.edit import EditTool
from tui.tools.glob_tool import GlobTool
from tui.tools.grep import GrepTool
from tui.tools.names import parse_name, show_name
from tui.tools.read import ReadTool
from tui.tools.write import WriteTool

NEWLINE, BYTE = "$'a\\nb.txt'", "$'\\xff.txt'"


@pytest.fixture
def odd(project: Path) -> Path:
    """A project with `a<newline>b.txt`, `<0xff>.txt` and a plain file, each holding `needle`."""
    for name, mtime in ((b"a\nb.txt", 3_000_000), (b"\xff.txt", 2_000_000), (b"plain.txt", 1_000_000)):
        path = os.fsencode(project) + b"/" + name
        fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
        os.write(fd, b"one\nneedle here\n")
        os.close(fd)
        os.utime(path, (mtime, mtime))
    return project


@pytest.mark.timeout(10)
def test_glob_lists_each_odd_name_once_escaped(odd: Path, ctx: ToolContext) -> None:
    assert GlobTool().run({"pattern": "*.txt"}, ctx).text().splitlines() == [NEWLINE, BYTE, "plain.txt"]


@pytest.mark.timeout(10)
def test_grep_lists_each_odd_name_once_escaped_in_every_mode(odd: Path, ctx: ToolContext) -> None:
    grep = GrepTool()
    assert grep.run({"pattern": "needle"}, ctx).text().splitlines() == ["Found 3 files", NEWLINE, BYTE, "plain.txt"]
    content = grep.run({"pattern": "needle", "output_mode": "content"}, ctx).text().splitlines()
    assert sorted(content) == sorted([f"{NEWLINE}:2:needle here", f"{BYTE}:2:needle here", "plain.txt:2:needle here"])
    around = grep.run({"pattern": "needle", "output_mode": "content", "-B": 1, "path": NEWLINE}, ctx).text()
    assert around.splitlines() == [f"{NEWLINE}-1-one", f"{NEWLINE}:2:needle here"]
    count = grep.run({"pattern": "needle", "output_mode": "count"}, ctx).text().splitlines()
    assert count[:3] == sorted([f"{NEWLINE}:1", f"{BYTE}:1", "plain.txt:1"])


@pytest.mark.timeout(10)
@pytest.mark.parametrize("shown", [NEWLINE, BYTE])
def test_the_name_shown_opens_the_file_in_read_edit_and_write(odd: Path, ctx: ToolContext, shown: str) -> None:
    real = os.fsencode(odd) + b"/" + (b"a\nb.txt" if shown == NEWLINE else b"\xff.txt")
    result = ReadTool().run({"file_path": shown}, ctx)
    assert result.text() == "1\tone\n2\tneedle here"
    assert ReadTool().label({"file_path": shown}, ctx) == f"Read {shown}"
    whole = show_name(os.fsdecode(real))  # the absolute path, quoted as a whole: $'/…/a\nb.txt'
    assert whole.startswith("$'/")
    edited = EditTool().run({"file_path": shown, "old_string": "one", "new_string": "two"}, ctx)
    with open(real, "rb") as f:
        assert f.read() == b"two\nneedle here\n"
    assert edited.text().startswith(f"The file {whole} has been updated")
    written = WriteTool().run({"file_path": whole, "content": "three\n"}, ctx)  # the absolute form opens it too
    with open(real, "rb") as f:
        assert f.read() == b"three\n"
    assert written.text() == f"The file {whole} has been updated successfully."
    assert sorted(os.listdir(os.fsencode(odd))) == sorted([b"a\nb.txt", b"\xff.txt", b"plain.txt"])


@pytest.mark.parametrize(
    "name",
    [
        b"a\nb.txt",
        b"\xff.txt",
        b"plain.txt",
        b"it's $'x'",
        b"back\\slash\tand\rcr",
        b"\xc3",
        "é\u202e".encode(),
        b"\x7f\x01",
        "\u0085".encode(),
        b"a\\nb",
    ],
)
def test_show_and_parse_are_exact_inverses(name: bytes) -> None:
    shown = show_name(name)
    assert os.fsencode(parse_name(shown)) == name
    assert "\n" not in shown and shown.isprintable()


def test_plain_names_are_shown_as_they_are_and_quotes_follow_bash() -> None:
    assert show_name("src/app.py") == "src/app.py"
    assert show_name("a\\nb") == "a\\nb"  # a real backslash in a plain name stays as it is
    assert show_name(b"a\nb.txt") == "$'a\\nb.txt'"
    assert parse_name("dir/$'a\\nb'/x") == "dir/a\nb/x"  # quoted parts inside a path, as in Bash
    assert parse_name("price$'s") == "price$'s"  # an unclosed quote is taken literally


@pytest.mark.parametrize("tool", [ReadTool(), EditTool(), WriteTool(), GlobTool(), GrepTool()])
@pytest.mark.parametrize("given", [NEWLINE, "$'$\\'\\\\x2f..\\\\x2fproj\\'/f'", "plain.txt", "it's $'x'"])
def test_the_gate_checks_the_very_path_the_tool_opens(
    project: Path, ctx: ToolContext, tool: object, given: str
) -> None:
    """The gate resolves the permission target again: that must give the tool's path, not unquote a second time."""
    key = "path" if isinstance(tool, (GlobTool, GrepTool)) else "file_path"
    opened = ctx.resolve(given)
    target = tool.permission_target({key: given, "pattern": "x"}, ctx)  # type: ignore[attr-defined]
    assert ctx.resolve(target) == opened
