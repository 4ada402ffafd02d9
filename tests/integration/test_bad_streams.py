"""Malformed 200 streams, scripted as raw SSE: one clear error, the partial reply kept, the session usable.

Each case goes through a real session (the SDK's streaming helper against the loopback fake API)
and then a second prompt must work with a request the fake API's validator accepts; the same
cases run through `agent-tui -p` in real subprocesses.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.fakeapi import FakeAPI, reply
from tests.fakeapi.demo_project import make_demo_project
from tests.fakeapi.script import Raw, raw, raw_sse
from tests.integration.helpers import make_session
from tui.agent.events import LoopStopped, RetryScheduled, ToolFinished

Frame = tuple[str, Any]


def start() -> Frame:
    return (
        "message_start",
        {
            "type": "message_start",
            "message": {
                "id": "msg_01bad",
                "type": "message",
                "role": "assistant",
                "content": [],
                "model": "claude-sonnet-5-5",
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {"input_tokens": 12, "output_tokens": 1},
            },
        },
    )


def text_block(index: int, *chunks: str) -> list[Frame]:
    frames: list[Frame] = [
        (
            "content_block_start",
            {"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}},
        )
    ]
    frames += [
        (
            "content_block_delta",
            {"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": c}},
        )
        for c in chunks
    ]
    return frames


def stop_block(index: int) -> Frame:
    return ("content_block_stop", {"type": "content_block_stop", "index": index})


def end(reason: str) -> list[Frame]:
    return [
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": reason, "stop_sequence": None},
                "usage": {"output_tokens": 9},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]


def tool_call(partial_json: str, tool_id: str = "toolu_01badinput") -> list[Frame]:
    """A Read call whose whole input arrives in one verbatim input_json_delta (JSON-escaped here)."""
    delta = json.dumps(
        {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": partial_json}}
    )
    return [
        (
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "tool_use", "id": tool_id, "name": "Read", "input": {}},
            },
        ),
        ("content_block_delta", delta),
        stop_block(0),
    ]


SURROGATE_DELTA = '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"broken \\ud800 here"}}'
DEEP = "[" * 1000 + "]" * 1000

#: name -> (the malformed answer, words of the one error sentence, text kept from the partial reply)
CASES: dict[str, tuple[Raw, str, str]] = {
    "lone-surrogate-text": (
        raw_sse(
            start(),
            *text_block(0, "Partial answer, "),
            ("content_block_delta", SURROGATE_DELTA),
            stop_block(0),
            *end("end_turn"),
        ),
        "unpaired surrogate",
        "Partial answer, broken \ufffd here",
    ),
    "html-200": (raw("<html><body><h1>502 Bad Gateway</h1></body></html>", "text/html"), "text/html", ""),
    "json-200": (raw('{"type": "message", "content": []}', "application/json"), "application/json", ""),
    "unknown-block-index": (
        raw_sse(
            start(),
            *text_block(0, "Kept so far. "),
            (
                "content_block_delta",
                {"type": "content_block_delta", "index": 4, "delta": {"type": "text_delta", "text": "lost"}},
            ),
            stop_block(0),
            *end("end_turn"),
        ),
        "block 4",
        "Kept so far. ",
    ),
    "tool-use-without-tools": (
        raw_sse(start(), *text_block(0, "I will call a tool."), stop_block(0), *end("tool_use")),
        "no tool call",
        "I will call a tool.",
    ),
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_demo_project(tmp_path / "proj")


def one_sentence(detail: str) -> None:
    assert detail and "\n" not in detail
    for bad in ("Internal error", "AssertionError", "Traceback", "Unexpected error"):
        assert bad not in detail, detail


@pytest.mark.parametrize("name", list(CASES))
def test_malformed_stream_is_one_error_and_the_session_goes_on(name, monkeypatch, project):
    answer, words, kept = CASES[name]
    with FakeAPI([answer, reply("second answer")]) as api:
        session, rec = make_session(monkeypatch, api.base_url, project)
        session.run_turn("first")
        stops = rec.of(LoopStopped)
        assert len(stops) == 1 and stops[0].is_error and not rec.of(RetryScheduled)  # not retried
        one_sentence(stops[0].detail)
        assert words in stops[0].detail
        assert session.last_assistant_text() == kept
        session.run_turn("second")
        assert rec.of(LoopStopped)[-1].reason == "end_turn"
        assert session.last_assistant_text() == "second answer"
        assert api.errors == [] and [r.status for r in api.message_requests] == [200, 200]


def test_empty_200_is_retried_a_bounded_number_of_times_then_said(monkeypatch, project):
    with FakeAPI([raw("")] * 3 + [reply("after three empty answers")] + [raw("")] * 3) as api:
        session, rec = make_session(monkeypatch, api.base_url, project, max_retries=2)
        session.run_turn("first")
        assert rec.of(LoopStopped)[0].reason == "stream_failed"
        assert (
            "empty stream" in rec.of(LoopStopped)[0].detail
            and "Gave up after 3 attempts" in rec.of(LoopStopped)[0].detail
        )
        session.run_turn("again")
        assert session.last_assistant_text() == "after three empty answers"
        assert api.errors == [] and len(api.message_requests) == 4


@pytest.mark.parametrize(
    "partial_json, tool_id",
    [
        ('{"file_path": "a\\ud800.py"}', "toolu_01surrogate"),
        ('{"file_path": ' + DEEP + "}", "toolu_01deepinput"),
        ('{"file_path": "a.py", "x": ' + "[" * 300 + "]" * 300 + "}", "toolu_01parsable"),
    ],
    ids=["lone-surrogate", "nested-1000-deep", "nested-300-deep-parsable"],
)
def test_unusable_tool_input_is_an_error_result_and_the_history_stays_sendable(
    partial_json, tool_id, monkeypatch, project
):
    answer = raw_sse(start(), *tool_call(partial_json, tool_id), *end("tool_use"))
    with FakeAPI([answer, reply("noted, the input was bad")]) as api:
        session, rec = make_session(monkeypatch, api.base_url, project)
        session.run_turn("read it")
        assert api.errors == [] and [r.status for r in api.message_requests] == [200, 200]
        sent_back = api.message_requests[1].body["messages"]
    result = sent_back[-1]["content"][0]
    assert result["tool_use_id"] == tool_id and result["is_error"] and "not valid JSON" in result["content"]
    assert not any(f.tool_use_id == tool_id and not f.is_error for f in rec.of(ToolFinished))
    assert rec.of(LoopStopped)[0].reason == "end_turn"


def test_a_prompt_with_a_surrogate_escaped_byte_is_sent_as_valid_unicode(monkeypatch, project):
    with FakeAPI([reply("fine")]) as api:
        session, rec = make_session(monkeypatch, api.base_url, project)
        session.run_turn("look at \udcff")  # what argv holds for an invalid UTF-8 byte
        assert api.errors == [] and rec.of(LoopStopped)[0].reason == "end_turn"


def test_print_mode_subprocesses_say_one_sentence_and_keep_the_partial_reply(project, tmp_path):
    """`agent-tui -p` as a user runs it, one real process per case, started together."""
    with contextlib.ExitStack() as stack:
        apis = {n: stack.enter_context(FakeAPI([CASES[n][0]])) for n in CASES}
        procs = {}
        for n in CASES:
            env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
            env.update(
                ANTHROPIC_BASE_URL=apis[n].base_url,
                ANTHROPIC_API_KEY="sk-test",
                XDG_DATA_HOME=str(tmp_path / f"data-{n}"),
                XDG_CONFIG_HOME=str(tmp_path / "config"),
            )
            procs[n] = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "tui.cli.main",
                    "-p",
                    "go",
                    "--model",
                    "claude-sonnet-5-5",
                    "--cwd",
                    str(project),
                ],
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            stack.callback(procs[n].kill)  # a no-op once it has exited
        for n, proc in procs.items():
            out, err = proc.communicate(timeout=60)
            _, words, kept = CASES[n]
            assert proc.returncode == 1, (n, err)
            assert "Traceback" not in err and "Internal error" not in err, err
            stopped = [line for line in err.splitlines() if line.startswith("agent-tui: stopped")]
            assert len(stopped) == 1 and words in stopped[0], err
            assert out.strip() == kept.strip()
            assert apis[n].errors == []
