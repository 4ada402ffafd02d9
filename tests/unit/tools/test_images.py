"""Images attached with `@path` or a pasted path: scaled to what the API takes, the original untouched, bad ones
refused."""

from __future__ import annotations

import base64
import hashlib
import io
import struct
import zlib
from pathlib import Path

import pytest
from PIL import Image

from tui.agent.options import AgentOptions
from tui.agent.prompt.pipeline import prepare_prompt
from tui.agent.session import AgentSession
from tui.config.settings import load_settings
from tui.tools.image_scale import header_size
from tui.tools.pasted_paths import pasted_image_paths


def picture(path: Path, size: tuple[int, int], fmt: str = "PNG", mode: str = "RGB") -> Path:
    """A picture with some detail (a gradient and a square), written as `fmt`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    image = Image.linear_gradient("L").resize(size).convert(mode)
    image.paste((200, 30, 30) if mode == "RGB" else 128, (size[0] // 4, size[1] // 4, size[0] // 2, size[1] // 2))
    image.save(path, fmt)
    return path


def huge_png_header(path: Path, width: int, height: int) -> Path:
    """A PNG whose header claims `width` × `height` pixels (the decompression-bomb shape), with one tiny IDAT."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    path.write_bytes(
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0" * 64)) + chunk(b"IEND", b"")
    )
    return path


def _session(project: Path, **options: object) -> AgentSession:
    return AgentSession(AgentOptions(project_dir=project, transcript=False, **options))  # type: ignore[arg-type]


def _sent(entry: dict) -> Image.Image:
    return Image.open(io.BytesIO(base64.b64decode(entry["block"]["source"]["data"])))


def test_a_big_png_is_scaled_to_the_long_edge_as_jpeg_and_the_file_is_untouched(tmp_path: Path) -> None:
    shot = picture(tmp_path / "shot.png", (3000, 2000))
    before = hashlib.sha256(shot.read_bytes()).hexdigest()
    prepared = prepare_prompt(_session(tmp_path), "describe @shot.png")
    assert prepared.notices == [] and len(prepared.images) == 1
    entry = prepared.images[0]
    assert entry["block"]["type"] == "image" and entry["block"]["source"]["media_type"] == "image/jpeg"
    assert (entry["width"], entry["height"]) == (1568, 1045) == _sent(entry).size
    assert (entry["original_width"], entry["original_height"]) == (3000, 2000)
    assert entry["name"] == "shot.png" and entry["bytes"] <= 3_750_000
    assert prepared.prompt == "describe @shot.png"  # the picture goes as a block, not as text
    assert hashlib.sha256(shot.read_bytes()).hexdigest() == before


def test_small_images_go_as_they_are_in_their_own_format(tmp_path: Path) -> None:
    for name, fmt, media_type in (
        ("a.png", "PNG", "image/png"),
        ("b.jpeg", "JPEG", "image/jpeg"),
        ("c.gif", "GIF", "image/gif"),
        ("d.webp", "WEBP", "image/webp"),
    ):
        path = picture(tmp_path / name, (320, 200), fmt)
        prepared = prepare_prompt(_session(tmp_path), f"look @{name}")
        source = prepared.images[0]["block"]["source"]
        assert source["media_type"] == media_type
        assert base64.b64decode(source["data"]) == path.read_bytes()
        assert (prepared.images[0]["width"], prepared.images[0]["height"]) == (320, 200)


def test_the_image_max_edge_setting_scales_further_and_a_bad_value_is_one_sentence(tmp_path: Path) -> None:
    picture(tmp_path / "wide.png", (2000, 500))
    prepared = prepare_prompt(_session(tmp_path, image_max_edge=800), "@wide.png")
    assert (prepared.images[0]["width"], prepared.images[0]["height"]) == (800, 200)
    (tmp_path / ".agent-tui").mkdir()
    (tmp_path / ".agent-tui" / "settings.toml").write_text("image_max_edge = 9000\n")
    problems = load_settings(tmp_path).problems
    assert len(problems) == 1 and "image_max_edge" in problems[0]
    assert "expected a whole number of pixels from 64 to 8000, got 9000" in problems[0]


def test_a_file_that_is_not_a_whole_image_gets_one_sentence_and_is_not_sent(tmp_path: Path) -> None:
    (tmp_path / "notes.png").write_text("not a picture\n")
    good = picture(tmp_path / "cut.png", (800, 600)).read_bytes()
    (tmp_path / "cut.png").write_bytes(good[: len(good) // 3])
    huge_png_header(tmp_path / "bomb.png", 30000, 30000)
    prepared = prepare_prompt(_session(tmp_path), "see @notes.png @cut.png @bomb.png")
    assert prepared.images == []
    assert prepared.notices == [
        "@notes.png was not attached: it is not a png, jpeg, gif or webp image.",
        "@cut.png was not attached: it is cut short or damaged, so it cannot be decoded.",
        "@bomb.png was not attached: it is 30000×30000 pixels, too large to decode safely (more than 64 megapixels).",
    ]
    assert prepared.prompt == "see @notes.png @cut.png @bomb.png"


def test_an_image_under_a_deny_rule_is_refused_like_any_file(tmp_path: Path) -> None:
    picture(tmp_path / "secret.png", (100, 100))
    prepared = prepare_prompt(_session(tmp_path, disallowed_tools=["Read(./secret.png)"]), "@secret.png")
    assert prepared.images == [] and "is denied by the rule `Read(./secret.png)`" in prepared.notices[0]


@pytest.mark.parametrize(
    "pasted",
    [
        "'{d}/My Shot.png'",
        '"{d}/My Shot.png"',
        "{d}/My\\ Shot.png",
        "file://{d}/My%20Shot.png",
        "{d}/My Shot.png\n",
    ],
)
def test_a_pasted_path_is_an_image_however_the_terminal_quotes_it(tmp_path: Path, pasted: str) -> None:
    picture(tmp_path / "My Shot.png", (10, 10))
    assert pasted_image_paths(pasted.format(d=tmp_path), tmp_path) == [str(tmp_path / "My Shot.png")]


def test_several_dropped_files_attach_and_any_other_paste_stays_text(tmp_path: Path) -> None:
    a, b = picture(tmp_path / "a.png", (10, 10)), picture(tmp_path / "b.gif", (10, 10), "GIF")
    (tmp_path / "notes.txt").write_text("x")
    assert pasted_image_paths(f"file://{a}\nfile://{b}\n", tmp_path) == [str(a), str(b)]
    assert pasted_image_paths("a.png b.gif", tmp_path) == [str(a), str(b)]
    for text in ("look at a.png", f"{a} notes.txt", "missing.png", "'unbalanced", "file://host/a.png", ""):
        assert pasted_image_paths(text, tmp_path) == []


def test_header_size_reads_each_format_without_decoding(tmp_path: Path) -> None:
    for fmt in ("PNG", "GIF", "WEBP", "JPEG"):
        out = io.BytesIO()
        Image.new("RGB", (321, 123)).save(out, fmt)
        assert header_size(out.getvalue()[:2000]) == (321, 123), fmt
    assert header_size(b"plain text") is None


def test_start_up_loads_neither_pillow_nor_textual_image() -> None:
    import subprocess
    import sys

    code = (
        "import sys, tui.ui.app, tui.headless.run, tui.tools.attachments, tui.agent.prompt.pipeline\n"
        "heavy = [m for m in sys.modules if m.split('.')[0] in ('PIL', 'textual_image')]\n"
        "assert not heavy, heavy\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
