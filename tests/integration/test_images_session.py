"""A prompt's images in a recorded session: their bytes stored once, resume and replay see them as sent."""

from __future__ import annotations

import json
from pathlib import Path

from tests.unit.tools.test_images import picture
from tui.agent import events as ev
from tui.agent.options import AgentOptions
from tui.agent.replay import load_events
from tui.agent.resume import list_sessions, load_session
from tui.agent.session import AgentSession
from tui.hooks.prompt_input import prepare_prompt


def _images_in(message: dict) -> list[dict]:
    return [b for b in message["content"] if b.get("type") == "image"]


def test_images_are_stored_once_and_come_back_whole_on_resume_and_replay(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    picture(project / "shot.png", (2400, 1200))
    options = AgentOptions(project_dir=project, offline=True, offline_delay=0, sessions_dir=tmp_path / "sessions")
    session = AgentSession(options)
    prepared = prepare_prompt(session, "describe @shot.png")
    session.run_turn(prepared.prompt, tuple(prepared.images))
    session.run_turn("and now the colours")  # the history (with the picture) is sent again, merged records too
    sent = _images_in(session.messages[0])[0]
    assert session.messages[0]["content"][-1] == {"type": "text", "text": "describe @shot.png"}
    path = session.transcript_path
    session.close()
    assert path is not None
    records = [json.loads(line) for line in path.read_bytes().splitlines()]
    data = sent["source"]["data"]
    assert [r["type"] for r in records].count("image_data") == 1
    assert path.read_text().count(data) == 1  # the base64 once, however many records hold the message
    assert len(path.read_bytes()) < len(data) + 200_000
    loaded = load_session(path)
    assert loaded.warnings == [] and _images_in(loaded.messages[0]) == [sent]
    events, skipped = load_events(path)
    started = [e for e in events if isinstance(e, ev.TurnStarted)]
    assert skipped == 0 and started[0].images[0]["block"] == sent and started[0].images[0]["name"] == "shot.png"
    assert started[1].images == ()
    listed = list_sessions(project, tmp_path / "sessions")  # the picker reads past the picture to the prompt
    assert [s.first_prompt for s in listed] == ["describe @shot.png"]


def test_a_resumed_session_refers_to_the_pictures_already_in_its_file(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    picture(project / "shot.png", (300, 200))
    options = AgentOptions(project_dir=project, offline=True, offline_delay=0, sessions_dir=tmp_path / "sessions")
    first = AgentSession(options)
    prepared = prepare_prompt(first, "@shot.png")
    first.run_turn(prepared.prompt, tuple(prepared.images))
    path = first.transcript_path
    first.close()
    again = AgentSession(
        AgentOptions(project_dir=project, offline=True, offline_delay=0, sessions_dir=tmp_path / "sessions")
    )
    again.resume(path.stem)
    prepared = prepare_prompt(again, "@shot.png once more")
    again.run_turn(prepared.prompt, tuple(prepared.images))  # the same picture: no second copy of its bytes
    again.close()
    assert path.read_text().count('"type": "image_data"') == 1
    assert len(_images_in(load_session(path).messages[-2])) == 1
