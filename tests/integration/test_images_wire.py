"""Images on the wire (fake API, real SDK): `-p "describe @shot.png"` sends an image block of the scaled picture."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path

from PIL import Image

from tests.fakeapi import FakeAPI
from tests.fakeapi.script import reply, text
from tests.integration.test_headless import run_cli
from tests.unit.tools.test_images import picture


def _env(tmp_path: Path, api: FakeAPI) -> dict[str, str]:
    home = tmp_path / "home"
    return {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local/share"),
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "ANTHROPIC_API_KEY": "sk-test",
        "ANTHROPIC_BASE_URL": api.base_url,
    }


def _picture_of(block: dict) -> Image.Image:
    return Image.open(io.BytesIO(base64.b64decode(block["source"]["data"])))


def test_print_mode_sends_the_scaled_image_before_the_prompt_text(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    picture(project / "shot.png", (4000, 3000))
    picture(project / "icon.png", (64, 48))
    with FakeAPI([reply(text("A gradient with a red square."), stop_reason="end_turn")]) as api:
        proc = run_cli(
            ["-p", "describe @shot.png and @icon.png", "--output-format", "stream-json"], project, _env(tmp_path, api)
        )
        bodies = [r.body for r in api.message_requests]
    assert proc.returncode == 0, proc.stderr
    assert api.errors == [] and len(bodies) == 1
    content = bodies[0]["messages"][0]["content"]
    assert [b["type"] for b in content] == ["image", "image", "text"]
    assert content[2]["text"] == "describe @shot.png and @icon.png"
    big, small = content[0], content[1]
    assert big["source"]["media_type"] == "image/jpeg" and _picture_of(big).size == (1568, 1176)
    assert small["source"]["media_type"] == "image/png" and _picture_of(small).size == (64, 48)
    assert base64.b64decode(small["source"]["data"]) == (project / "icon.png").read_bytes()
    started = next(json.loads(line) for line in proc.stdout.splitlines() if '"turn_started"' in line)
    assert [(i["name"], i["width"], i["height"]) for i in started["images"]] == [
        ("shot.png", 1568, 1176),
        ("icon.png", 64, 48),
    ]
    assert "block" not in started["images"][0]  # turn_started names the pictures; the request carries them


def test_print_mode_refuses_a_bad_image_with_one_sentence_and_sends_the_prompt_without_it(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    whole = picture(project / "shot.png", (800, 600)).read_bytes()
    (project / "shot.png").write_bytes(whole[: len(whole) // 2])  # cut short, as an interrupted copy leaves it
    with FakeAPI([reply(text("ok"), stop_reason="end_turn")]) as api:
        proc = run_cli(["-p", "describe @shot.png"], project, _env(tmp_path, api))
        body = api.message_requests[0].body
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip() == (
        "agent-tui: @shot.png was not attached: it is cut short or damaged, so it cannot be decoded."
    )
    assert [(b["type"], b.get("text")) for b in body["messages"][0]["content"]] == [("text", "describe @shot.png")]


def test_the_fake_api_refuses_what_the_api_refuses(tmp_path: Path) -> None:
    from tests.fakeapi.images import check_images

    def image(media_type: str, data: str) -> list[dict]:
        return [
            {
                "role": "user",
                "content": [{"type": "image", "source": {"type": "base64", "media_type": media_type, "data": data}}],
            }
        ]

    assert check_images(image("image/png", "iVBORw0KGgo=")) is None
    assert "media_type" in str(check_images(image("image/bmp", "iVBORw0KGgo=")))
    assert "not valid base64" in str(check_images(image("image/png", "not base64!")))
    assert "exceeds 5 MB" in str(check_images(image("image/png", "A" * (5 * 1024 * 1024 + 4))))
    assert "must be non-empty" in str(check_images([{"role": "user", "content": [{"type": "text", "text": ""}]}]))
