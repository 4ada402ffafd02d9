"""The one bounded reader: regular files only, a size cap, nesting counted before parsing, lines dropped whole."""

from __future__ import annotations

import io
import json
import os
import time
from pathlib import Path

import pytest

from tui.config.bounded_read import (
    MAX_DEPTH,
    BoundedReadError,
    bounded_lines,
    load_json_file,
    load_toml_file,
    nesting_depth,
)


def test_brackets_in_strings_and_comments_do_not_count() -> None:
    deep = "[" * 500
    assert nesting_depth(json.dumps({"a": deep, "b": [[1]]})) <= 3
    assert nesting_depth(f"a = \"{deep}\"  # {deep}\nb = [[1]]\nc = '{deep}'\n", toml=True) <= 2
    assert nesting_depth(f"x = \"\"\"{deep}\"\"\"\ny = '''{deep}'''", toml=True) == 0
    assert nesting_depth('["\\"' + deep + '"]') <= 1  # an escaped quote does not end the string
    assert nesting_depth("[" * 150 + "]" * 150) == 150


def test_a_long_picture_line_is_checked_quickly() -> None:
    line = json.dumps({"type": "image", "data": "A" * 20_000_000, "list": [[1], {"a": [2]}]})
    started = time.monotonic()
    assert nesting_depth(line) <= MAX_DEPTH
    assert time.monotonic() - started < 1


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("deep.json", "[" * 200_000 + "]" * 200_000),
        ("deep.toml", "a = " + "[" * 200_000 + "]" * 200_000),
        ("dotted.toml", "a" + ".a" * 5_000 + " = 1\n"),  # nests without a bracket
        ("table.toml", "[" + ".".join(["t"] * 5_000) + "]\nx = 1\n"),
    ],
)
def test_deep_files_are_one_sentence_naming_them(tmp_path: Path, name: str, text: str) -> None:
    path = tmp_path / name
    path.write_text(text)
    load = load_json_file if name.endswith(".json") else load_toml_file
    with pytest.raises(BoundedReadError) as refused:
        load(path)
    assert str(refused.value) == f"{path} is nested too deeply to read (more than {MAX_DEPTH} levels)."


def test_special_and_huge_files_are_one_sentence(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo.json")
    (tmp_path / "zero.json").symlink_to("/dev/zero")
    with (tmp_path / "huge.json").open("wb") as out:
        out.truncate(50 * 1024 * 1024)
    for name, words in [("fifo.json", "is a FIFO"), ("zero.json", "is a character device"), ("huge.json", "larger")]:
        with pytest.raises(BoundedReadError, match=words):
            load_json_file(tmp_path / name)
    with pytest.raises(FileNotFoundError):
        load_json_file(tmp_path / "missing.json")


def test_a_line_over_the_limit_is_dropped_whole() -> None:
    text = "short\n" + "x" * 50 + "tail that looks like a line\n" + "y" * 10 + "\nlast"
    assert list(bounded_lines(io.StringIO(text), 20)) == ["short\n", None, "y" * 10 + "\n", "last"]
    assert list(bounded_lines(io.BytesIO(b"z" * 21 + b"\n"), 20)) == [None]
    assert list(bounded_lines(io.BytesIO(b"z" * 20 + b"\n"), 20)) == [b"z" * 20 + b"\n"]
