"""A prompt's images in a recorded session: their bytes stored once, resume and replay see them as sent."""

from __future__ import annotations

import json
from pathlib import Path

from tests.unit.tools.test_images import picture
from tui.agent import events as ev
from tui.agent.history.replay import load_events
from tui.agent.history.resume import list_sessions, load_session
from tui.agent.options import AgentOptions
from tui.agent.prompt.pipeline import prepare_prompt
from tui.agent.session import AgentSession


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


REFUSAL = "messages.0.content.0.image.source.base64: The image could not be processed."


def _no_image_anywhere(messages: list[dict]) -> bool:
    return '"type": "image"' not in json.dumps(messages)


def test_an_image_the_api_refused_is_never_sent_again_on_resume(tmp_path: Path, monkeypatch) -> None:
    from tests.fakeapi import FakeAPI, http_error, reply, text
    from tests.integration.helpers import make_session

    project = tmp_path / "proj"
    picture(project / "shot.png", (300, 200))
    with FakeAPI([http_error(400, "invalid_request_error", REFUSAL), reply(text("Fine."))]) as api:
        session, recorder = make_session(monkeypatch, api.base_url, project, sessions_dir=tmp_path / "sessions")
        prepared = prepare_prompt(session, "describe @shot.png")
        session.run_turn(prepared.prompt, tuple(prepared.images))
        stopped = recorder.of(ev.LoopStopped)[-1]
        assert stopped.is_error and "replaced by a note, so resuming never sends it again" in stopped.detail
        path = session.transcript_path
        session.close()
        records = [json.loads(line) for line in path.read_bytes().splitlines()]
        assert any(r["type"] == "history" and r.get("reason") == "image refused" for r in records)
        again, _ = make_session(monkeypatch, api.base_url, project, sessions_dir=tmp_path / "sessions")
        again.resume(path.stem)  # -c / -r
        again.run_turn("and now?")
        again.close()
    first, resumed = (r.body["messages"] for r in api.message_requests)
    assert not _no_image_anywhere(first)  # it was sent once
    assert _no_image_anywhere(resumed)  # and never again
    note = json.dumps(resumed[0])
    assert "the API refused it and it is not sent again" in note and "could not be processed" in note


def test_a_refused_image_from_a_read_is_replaced_in_its_tool_result(tmp_path: Path, monkeypatch) -> None:
    from tests.fakeapi import FakeAPI, http_error, reply, text, tool_use
    from tests.integration.helpers import make_session

    project = tmp_path / "proj"
    picture(project / "shot.png", (300, 200))
    script = [
        reply(tool_use("Read", {"file_path": str(project / "shot.png")}), stop_reason="tool_use"),
        http_error(400, "invalid_request_error", REFUSAL.replace("messages.0.content.0", "messages.2.content.0")),
        reply(text("Fine.")),
    ]
    with FakeAPI(script) as api:
        session, _ = make_session(monkeypatch, api.base_url, project, sessions_dir=tmp_path / "sessions")
        session.run_turn("look at shot.png")
        path = session.transcript_path
        session.close()
        again, _ = make_session(monkeypatch, api.base_url, project, sessions_dir=tmp_path / "sessions")
        again.resume(path.stem)
        again.run_turn("and now?")
        again.close()
    refused, resumed = api.message_requests[1].body["messages"], api.message_requests[2].body["messages"]
    assert not _no_image_anywhere(refused) and _no_image_anywhere(resumed)
    result = resumed[2]["content"][0]
    assert result["type"] == "tool_result" and "the API refused it" in json.dumps(result["content"])
