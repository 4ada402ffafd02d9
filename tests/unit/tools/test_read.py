"""Read: cat -n output, limits, streaming, images, binary, encodings, helpful errors."""

from __future__ import annotations

import base64
import hashlib
import io
import os
import time
from pathlib import Path

import pytest

from tui.tools.base import ToolContext, ToolError
from tui.tools.read import ReadTool

read = ReadTool()
PNG_1PX = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


def test_cat_n_format_matches_claude_code(project: Path, ctx: ToolContext) -> None:
    (project / "a.py").write_text("def add(a, b):\n    # TODO: validate inputs\n    return a + b\n")
    result = read.run({"file_path": "a.py"}, ctx)
    assert result.content == "1\tdef add(a, b):\n2\t    # TODO: validate inputs\n3\t    return a + b"
    assert not result.is_error


def test_records_content_hash_for_freshness(project: Path, ctx: ToolContext) -> None:
    data = b"x = 1\n"
    (project / "a.py").write_bytes(data)
    read.run({"file_path": str(project / "a.py")}, ctx)
    assert ctx.state.read_hashes[str(project / "a.py")] == hashlib.sha256(data).hexdigest()


def test_offset_and_limit_with_continuation_note(project: Path, ctx: ToolContext) -> None:
    (project / "n.txt").write_text("".join(f"line {i}\n" for i in range(1, 11)))
    result = read.run({"file_path": "n.txt", "offset": 4, "limit": 3}, ctx)
    body, note = result.text().split("\n\n")
    assert body == "4\tline 4\n5\tline 5\n6\tline 6"
    assert "offset=7" in note and "of 10" in note


def test_default_limit_is_2000_lines(project: Path, ctx: ToolContext) -> None:
    (project / "big.txt").write_text("".join(f"{i}\n" for i in range(1, 2501)))
    text = read.run({"file_path": "big.txt"}, ctx).text()
    numbered = [line for line in text.split("\n") if "\t" in line]
    assert len(numbered) == 2000 and numbered[-1] == "2000\t2000"
    assert "offset=2001" in text


def test_long_line_cut_with_marker(project: Path, ctx: ToolContext) -> None:
    (project / "min.js").write_text("a" * 5000 + "\nshort\n")
    lines = read.run({"file_path": "min.js"}, ctx).text().split("\n")
    assert lines[0].startswith("1\t" + "a" * 2000 + "…")
    assert "truncated" in lines[0] and "5,000" in lines[0]
    assert lines[1] == "2\tshort"


def test_giant_single_line_is_not_loaded_whole(project: Path, ctx: ToolContext) -> None:
    (project / "one.json").write_bytes(b"[" + b"1," * 3_000_000 + b"1]")
    text = read.run({"file_path": "one.json"}, ctx).text()
    assert text.startswith("1\t[1,1,") and "6,000,003 bytes" in text
    assert len(text) < 3000


def test_empty_file_says_so(project: Path, ctx: ToolContext) -> None:
    (project / "empty.txt").write_bytes(b"")
    result = read.run({"file_path": "empty.txt"}, ctx)
    assert "empty" in result.text() and not result.is_error
    assert str(project / "empty.txt") in ctx.state.read_hashes


def test_crlf_lines_shown_without_carriage_returns(project: Path, ctx: ToolContext) -> None:
    (project / "w.txt").write_bytes(b"one\r\ntwo\r\n")
    assert read.run({"file_path": "w.txt"}, ctx).content == "1\tone\n2\ttwo"


def test_binary_file_gets_clear_message(project: Path, ctx: ToolContext) -> None:
    (project / "blob.dat2").write_bytes(b"\x00\x01\x02ELF\x00" * 100)
    with pytest.raises(ToolError, match="binary file"):
        read.run({"file_path": "blob.dat2"}, ctx)


def test_png_comes_back_as_image_block(project: Path, ctx: ToolContext) -> None:
    (project / "dot.png").write_bytes(PNG_1PX)
    result = read.run({"file_path": "dot.png"}, ctx)
    assert result.content == [
        {
            "type": "image",
            "source": {"type": "base64", "media_type": "image/png", "data": base64.b64encode(PNG_1PX).decode()},
        }
    ]


def _picture(fmt: str, size: tuple[int, int] = (4, 3)) -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", size, (200, 30, 30)).save(out, fmt)
    return out.getvalue()


def test_image_media_type_comes_from_the_decoded_picture(project: Path, ctx: ToolContext) -> None:
    (project / "photo.png").write_bytes(_picture("JPEG"))  # a JPEG with the wrong name
    (project / "anim.gif").write_bytes(_picture("GIF"))
    (project / "pic.webp").write_bytes(_picture("WEBP"))
    assert read.run({"file_path": "photo.png"}, ctx).content[0]["source"]["media_type"] == "image/jpeg"
    assert read.run({"file_path": "anim.gif"}, ctx).content[0]["source"]["media_type"] == "image/gif"
    assert read.run({"file_path": "pic.webp"}, ctx).content[0]["source"]["media_type"] == "image/webp"


def test_fake_image_is_refused(project: Path, ctx: ToolContext) -> None:
    (project / "notes.png").write_text("not really an image")
    with pytest.raises(ToolError, match=r"notes\.png cannot be sent as an image: it is not a png, jpeg, gif or webp"):
        read.run({"file_path": "notes.png"}, ctx)


def _bomb_png(width: int, height: int) -> bytes:
    """A PNG header claiming `width` x `height` pixels, and nothing decodable after it."""
    import struct
    import zlib

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = struct.pack(">I", len(ihdr)) + b"IHDR" + ihdr + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))
    return b"\x89PNG\r\n\x1a\n" + chunk


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"\xff\xd8\xff\xe0" + b"\x00" * 64, "not a png, jpeg, gif or webp image"),  # JPEG magic bytes, no picture
        (b"GIF89a" + b"\x00" * 32, "not a png, jpeg, gif or webp image"),
        (_picture("PNG", (64, 64))[:-40], "cut short or damaged"),  # a real PNG, truncated
        (_bomb_png(50_000, 50_000), "too large to decode safely"),
    ],
    ids=["jpeg-magic-only", "gif-magic-only", "truncated-png", "pixel-bomb"],
)
def test_an_image_is_checked_as_attachments_are_before_it_is_sent(
    project: Path, ctx: ToolContext, data: bytes, reason: str
) -> None:
    (project / "bad.png").write_bytes(data)
    with pytest.raises(ToolError, match=rf"bad\.png cannot be sent as an image: it .*{reason}"):
        read.run({"file_path": "bad.png"}, ctx)


def test_a_big_picture_is_scaled_to_fit_as_an_attachment_is(project: Path, ctx: ToolContext) -> None:
    (project / "wide.png").write_bytes(_picture("PNG", (4000, 1000)))
    result = read.run({"file_path": "wide.png"}, ctx)
    assert result.meta["original"][:2] == [4000, 1000]
    assert "scaled to 1568×392" in result.content[1]["text"]


def test_non_utf8_decoded_with_replacement_and_says_so(project: Path, ctx: ToolContext) -> None:
    (project / "latin.txt").write_bytes("café\nnaïve\n".encode("latin-1"))
    text = read.run({"file_path": "latin.txt"}, ctx).text()
    assert text.startswith("1\tcaf\ufffd\n2\tna\ufffdve")
    assert "not valid UTF-8" in text


def test_utf16_file_with_bom_is_decoded(project: Path, ctx: ToolContext) -> None:
    (project / "u16.txt").write_bytes("hello\nwörld\n".encode("utf-16"))
    text = read.run({"file_path": "u16.txt"}, ctx).text()
    assert text.startswith("1\thello\n2\twörld")


def test_utf8_bom_is_not_shown(project: Path, ctx: ToolContext) -> None:
    (project / "bom.txt").write_bytes(b"\xef\xbb\xbfhi\n")
    assert read.run({"file_path": "bom.txt"}, ctx).content == "1\thi"


def test_missing_file_suggests_close_matches(project: Path, ctx: ToolContext) -> None:
    (project / "config.yaml").write_text("a: 1\n")
    with pytest.raises(ToolError) as info:
        read.run({"file_path": "config.yml"}, ctx)
    assert "does not exist" in str(info.value) and "config.yaml" in str(info.value)


def test_directory_points_to_glob(project: Path, ctx: ToolContext) -> None:
    (project / "src").mkdir()
    with pytest.raises(ToolError, match=r"directory.*Glob"):
        read.run({"file_path": "src"}, ctx)


def test_offset_past_end_is_explained(project: Path, ctx: ToolContext) -> None:
    (project / "s.txt").write_text("a\nb\n")
    result = read.run({"file_path": "s.txt", "offset": 50}, ctx)
    assert "past the end" in result.text() and "2 lines" in result.text()


def test_last_line_without_newline(project: Path, ctx: ToolContext) -> None:
    (project / "t.txt").write_text("a\nb")
    assert read.run({"file_path": "t.txt"}, ctx).content == "1\ta\n2\tb"


@pytest.mark.parametrize(
    "tool_input",
    [
        {"file_path": "a\x00b"},
        {"file_path": 42},
        {"file_path": ""},
        {"file_path": "x" * 5000},
        {"file_path": "a.txt", "offset": "ten"},
        {"file_path": "a.txt", "limit": 0},
        {"file_path": "a.txt", "offset": True},
    ],
)
def test_hostile_inputs_give_tool_errors(project: Path, ctx: ToolContext, tool_input: dict) -> None:
    (project / "a.txt").write_text("a\n")
    with pytest.raises(ToolError):
        read.run(tool_input, ctx)


def test_fifo_is_refused_without_blocking(project: Path, ctx: ToolContext) -> None:
    os.mkfifo(project / "pipe")
    with pytest.raises(ToolError, match="not a regular file"):
        read.run({"file_path": "pipe"}, ctx)


def test_path_outside_project_is_read(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "outside.txt").write_text("hi\n")
    assert read.run({"file_path": "../outside.txt"}, ctx).content == "1\thi"


def test_label_and_permission_target(project: Path, ctx: ToolContext) -> None:
    assert read.label({"file_path": str(project / "src/app.py")}, ctx) == "Read src/app.py"
    assert read.permission_target({"file_path": "src/app.py"}, ctx) == str(project / "src/app.py")
    assert read.is_concurrency_safe({"file_path": "x"})


@pytest.mark.timeout(10)
def test_100mb_file_read_at_offset_is_fast(project: Path, ctx: ToolContext) -> None:
    pad = b"x" * 39
    big = project / "big.log"
    with open(big, "wb") as f:
        for block in range(0, 2_000_000, 100_000):
            f.write(b"".join(b"%09d %s\n" % (i, pad) for i in range(block + 1, block + 100_001)))
    assert big.stat().st_size == 100_000_000
    started = time.perf_counter()
    result = read.run({"file_path": "big.log", "offset": 1_000_000, "limit": 3}, ctx)
    elapsed = time.perf_counter() - started
    lines = result.text().split("\n")
    assert lines[:3] == [f"{n}\t{n:09d} {'x' * 39}" for n in (1_000_000, 1_000_001, 1_000_002)]
    assert "of 2,000,000" in result.text()
    assert elapsed < 2.0  # goal 0.3 s (see tests/bench/bench_tools.py); generous here for loaded CI machines


def test_huge_limit_stops_at_output_cap(project: Path, ctx: ToolContext) -> None:
    (project / "many.txt").write_text("".join(f"row {i}\n" for i in range(200_000)))
    text = read.run({"file_path": "many.txt", "limit": 10**9}, ctx).text()
    assert len(text) < 101_000 and "output stopped at 100,000 characters" in text
