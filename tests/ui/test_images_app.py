"""Images in the app (Pilot, offline engine): chips above the prompt, removing them, pasted paths, Ctrl+V, and
the picture in the conversation and the inspector."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from textual import events
from textual.widgets import Static

from tests.unit.tools.test_images import picture
from tui.ui.app import AgentApp
from tui.ui.screens.permission_dialog import PermissionDialog
from tui.ui.widgets.attachment_bar import AttachmentBar, AttachmentChip
from tui.ui.widgets.image_view import PromptImage
from tui.ui.widgets.inspector.json_tree import JsonTree, JsonView

from .conftest import SIZE, wait_for_dialog, wait_until


def _chips(app: AgentApp) -> list[str]:
    return [str(chip.render()) for chip in app.query(AttachmentChip)]


def _noting(app: AgentApp) -> list[str]:
    notes: list[str] = []
    original = app.notify
    app.notify = lambda message, **kw: (notes.append(message), original(message, **kw))  # type: ignore[method-assign]
    return notes


def _script(folder: Path, name: str, body: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


async def _paste(pilot, text: str) -> None:
    pilot.app.post_message(events.Paste(text))  # as the driver delivers it: the app hands it to the prompt
    await pilot.pause()


def _child(node, ending: str):
    node.tree._load_children(node)
    return next(child for child in node.children if child.data.path.endswith(ending))


async def test_pasted_paths_become_chips_removable_by_backspace_and_click_then_go_with_the_prompt(
    offline_options, demo_project: Path, tmp_path: Path
) -> None:
    picture(demo_project / "shot.png", (1280, 720))
    picture(demo_project / "My Icon.gif", (64, 48), "GIF")
    outside = picture(tmp_path / "desktop" / "photo.png", (3000, 1500))
    app = AgentApp(offline_options(), permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.prompt_area.images is not None)
        bar = app.query_one(AttachmentBar)
        assert not bar.display  # nothing attached: no bar
        await _paste(pilot, f"'{demo_project / 'shot.png'}'")  # quoted, as GNOME Terminal drops a file
        await _paste(pilot, f"file://{demo_project}/My%20Icon.gif")  # a file manager's copy
        await wait_until(pilot, lambda: len(_chips(app)) == 2)
        assert _chips(app) == ["[image 1: shot.png 1280×720 ✕]", "[image 2: My Icon.gif 64×48 ✕]"]
        assert bar.display and app.prompt_area.text == ""  # the paths did not go into the prompt
        await pilot.press("backspace")  # at the prompt's start: the last chip goes
        assert _chips(app) == ["[image 1: shot.png 1280×720 ✕]"]
        await pilot.click(AttachmentChip)
        assert _chips(app) == [] and not bar.display
        # a dropped file outside the project is asked about, as a Read of it would be
        await _paste(pilot, str(outside).replace(" ", "\\ "))
        await wait_for_dialog(pilot, PermissionDialog)
        assert "photo.png" in app.screen.event.label
        await pilot.press("1")  # allow once
        await wait_until(pilot, lambda: len(_chips(app)) == 1)
        assert _chips(app) == ["[image 1: photo.png 1568×784 ✕]"]
        await _paste(pilot, f"{demo_project / 'shot.png'}")
        await wait_until(pilot, lambda: len(_chips(app)) == 2)
        app.prompt_area.insert("what differs?")
        await pilot.press("left", "backspace")  # not at the start: Backspace deletes a character, the chips stay
        assert app.prompt_area.text == "what differ?" and len(_chips(app)) == 2
        app.prompt_area.load_text("what differs?")
        await pilot.press("enter")
        await wait_until(pilot, lambda: not app.controller.busy and len(app.session.messages) >= 2)
        content = app.session.messages[0]["content"]
        assert [b["type"] for b in content] == ["image", "image", "text"] and content[2]["text"] == "what differs?"
        assert content[0]["source"]["media_type"] == "image/jpeg" and content[1]["source"]["media_type"] == "image/png"
        assert _chips(app) == [] and not bar.display  # sent: the chips are gone
        shown = [str(image.query_one(".image-caption", Static).render()) for image in app.query(PromptImage)]
        assert shown[0].startswith("[image 1: photo.png 1568×784 · ") and shown[0].endswith("(from 3000×1500)]")
        assert shown[1].startswith("[image 2: shot.png 1280×720 · ")
        assert all(image.drawn is not None for image in app.query(PromptImage))  # half-block cells headless
        # the inspector: the block says what it is and what was sent, its base64 cut short
        await pilot.press("f2")
        await wait_until(pilot, lambda: app.query("#inspector-request"))
        await wait_until(pilot, lambda: app.query_one("#inspector-request", JsonView).value is not None)
        tree = app.query_one("#inspector-request", JsonView).query_one(JsonTree)
        block = _child(_child(_child(tree.root, ".messages"), "[0]"), ".content")
        image = _child(block, "[0]")
        assert "image · image/jpeg · 1568×784 · " in str(image.label) and "KB sent" in str(image.label)
        data = _child(_child(image, ".source"), ".data")
        assert "(base64 of " in str(data.label) and len(str(data.label)) < 100


async def test_typed_mention_draws_the_image_and_a_bad_one_is_one_sentence(offline_options, demo_project: Path) -> None:
    picture(demo_project / "shot.png", (800, 600))
    (demo_project / "fake.png").write_text("not a picture")
    app = AgentApp(offline_options(), permission_grace_s=0)
    notes = _noting(app)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.prompt_area.images is not None)
        app.prompt_area.insert("describe @shot.png and @fake.png please")  # past the last mention: no @ menu
        await pilot.pause()
        await pilot.press("enter")
        await wait_until(pilot, lambda: not app.controller.busy and len(app.session.messages) >= 2)
        assert "@fake.png was not attached: it is not a png, jpeg, gif or webp image." in notes
        assert [b["type"] for b in app.session.messages[0]["content"]] == ["image", "text"]
        assert app.session.messages[0]["content"][1]["text"] == "describe @shot.png and @fake.png please"
        captions = [str(image.query_one(".image-caption", Static).render()) for image in app.query(PromptImage)]
        assert len(captions) == 1 and captions[0].startswith("[image 1: shot.png 800×600 · ")
        # a pasted path to something that is not a picture is refused the same way, no chip
        await _paste(pilot, str(demo_project / "fake.png"))
        refused = f"{demo_project / 'fake.png'} was not attached"
        await wait_until(pilot, lambda: any(n.startswith(refused) for n in notes))
        assert _chips(app) == []


@pytest.mark.parametrize("tool", ["wl-paste", "xclip"])
async def test_ctrl_v_reads_the_clipboard_image_with_the_tool_there_is(
    offline_options, demo_project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tool: str
) -> None:
    clip = picture(tmp_path / "clip.png", (640, 480))
    tools = tmp_path / "bin"
    if tool == "wl-paste":
        _script(
            tools,
            "wl-paste",
            f'case "$1" in --list-types) printf "text/plain\\nimage/png\\n";; --no-newline) cat "{clip}";; esac\n',
        )
        monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-0")
    else:
        _script(
            tools, "xclip", f'case "$4" in TARGETS) printf "TARGETS\\nimage/png\\n";; image/png) cat "{clip}";; esac\n'
        )
        monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
        monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.setenv("PATH", f"{tools}{os.pathsep}{os.environ['PATH']}")
    app = AgentApp(offline_options(), permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.prompt_area.images is not None)
        await pilot.press("ctrl+v")
        await wait_until(pilot, lambda: _chips(app))
        assert _chips(app) == ["[image 1: clipboard 640×480 ✕]"]
        await pilot.press("enter")  # an image alone may be sent
        await wait_until(pilot, lambda: not app.controller.busy and len(app.session.messages) >= 2)
        assert [b["type"] for b in app.session.messages[0]["content"]] == ["image"]


async def test_ctrl_v_without_a_clipboard_tool_names_the_one_to_install(
    offline_options, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "empty").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setenv("DISPLAY", ":0")
    app = AgentApp(offline_options(), permission_grace_s=0)
    notes = _noting(app)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.prompt_area.images is not None)
        await pilot.press("ctrl+v")
        await wait_until(pilot, lambda: notes)
        assert notes == ["Ctrl+V reads an image from the clipboard with xclip, which is not installed."]
        assert _chips(app) == []


def test_a_resumed_history_shows_each_prompt_image_under_its_prompt() -> None:
    from tui.ui.screens.resume_screen import history_records

    block = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}
    messages = [
        {"role": "user", "content": [block, block, {"type": "text", "text": "compare"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "same"}]},
        {"role": "user", "content": [block]},
    ]  # an image sent alone is a turn too
    turns = history_records(messages)
    assert [[(b.kind, (b.image or {}).get("number")) for b in t.blocks] for t in turns] == [
        [("user", None), ("image", 1), ("image", 2), ("text", None)],
        [("user", None), ("image", 1)],
    ]
    assert turns[0].blocks[1].image["block"] is block
