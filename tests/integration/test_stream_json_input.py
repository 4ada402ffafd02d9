"""`-p --input-format stream-json`: prompts as Claude Code's JSON lines on stdin, several turns in one process."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.fakeapi import FakeAPI
from tests.fakeapi.demo_project import make_demo_project
from tests.fakeapi.script import reply, text, tool_use
from tests.integration.helpers import make_session, with_gate
from tui.agent.inbox import Inbox
from tui.headless.run import run_headless
from tui.headless.stream_input import StreamJsonInput


def user(content: Any, **extra: Any) -> str:
    return (
        json.dumps(
            {
                "type": "user",
                "message": {"role": "user", "content": content},
                "parent_tool_use_id": None,
                "session_id": "default",
                **extra,
            }
        )
        + "\n"
    )


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    make_demo_project(tmp_path / "proj")
    return tmp_path / "proj"


def test_two_turns_in_one_process_each_ending_with_its_result_line(project, tmp_path):
    script = [
        reply(text("First answer."), stop_reason="end_turn"),
        reply(text("Second answer."), stop_reason="end_turn"),
    ]
    with FakeAPI(script) as api:
        env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
        env.update(ANTHROPIC_BASE_URL=api.base_url, ANTHROPIC_API_KEY="sk-test", HOME=str(tmp_path / "home"))
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tui.cli.main",
                "-p",
                "--input-format",
                "stream-json",
                "--output-format",
                "stream-json",
            ],
            cwd=project,
            env=env,
            text=True,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert proc.stdin is not None and proc.stdout is not None
        lines: list[dict[str, Any]] = []

        def until_result() -> dict[str, Any]:
            for line in proc.stdout:  # type: ignore[union-attr]
                lines.append(json.loads(line))
                if lines[-1]["type"] == "result":
                    return lines[-1]
            raise AssertionError(f"stdout ended without a result line: {proc.stderr.read()}")  # type: ignore[union-attr]

        proc.stdin.write(user("first question"))
        proc.stdin.flush()
        first = until_result()  # the process stays up, waiting for the next line
        proc.stdin.write(user([{"type": "text", "text": "second question"}]))
        proc.stdin.close()
        second = until_result()
        assert proc.wait(60) == 0, proc.stderr.read()  # type: ignore[union-attr]
        assert api.errors == []
        bodies = [r.body for r in api.message_requests]
    assert lines[0]["type"] == "system" and lines[0]["subtype"] == "init"
    assert (first["result"], second["result"]) == ("First answer.", "Second answer.")
    assert first["session_id"] == second["session_id"] and not second["is_error"]
    assert [m["role"] for m in bodies[1]["messages"]] == ["user", "assistant", "user"]  # one conversation
    assert [e["prompt"] for e in lines if e["type"] == "turn_started"] == ["first question", "second question"]


def test_a_line_that_arrives_while_a_tool_runs_is_steered_into_that_turn(monkeypatch, project):
    script = [
        reply(text("Waiting."), tool_use("Gate", {}), stop_reason="tool_use"),
        reply(text("Steered answer."), stop_reason="end_turn"),
    ]
    with FakeAPI(script) as api:
        session, _ = make_session(monkeypatch, api.base_url, project)
        gate = with_gate(session)
        stdin_r, stdin_w = os.pipe()
        reader, writer = os.fdopen(stdin_r, "r"), os.fdopen(stdin_w, "w")
        out, err = io.StringIO(), io.StringIO()

        def type_while_the_gate_holds() -> None:
            writer.write(user("wait at the gate"))
            writer.flush()
            assert gate.started.wait(30)
            writer.write(user("also say hi"))
            writer.flush()
            while len(session.inbox) == 0:  # the reader has queued it (the turn holds at the gate meanwhile)
                gate.started.wait(0.01)
            gate.opened.set()
            writer.close()

        typist = threading.Thread(target=type_while_the_gate_holds, daemon=True)
        typist.start()
        code = run_headless(session.options, "", "stream-json", out=out, err=err, session=session, input_stream=reader)
        typist.join(10)
        assert api.errors == []
        last = api.message_requests[1].body["messages"][-1]
    assert code == 0, err.getvalue()
    assert [b["type"] for b in last["content"]] == ["tool_result", "text"] and last["content"][1][
        "text"
    ] == "also say hi"
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [line["type"] for line in lines].count("result") == 1  # one turn answered both lines
    steered = [line for line in lines if line["type"] == "messages_steered"]
    assert steered and steered[0]["iteration"] == 2 and steered[0]["texts"] == ["also say hi"]


def test_later_priority_waits_for_its_own_turn(monkeypatch, project):
    script = [reply(text("One."), stop_reason="end_turn"), reply(text("Two."), stop_reason="end_turn")]
    with FakeAPI(script) as api:
        session, _ = make_session(monkeypatch, api.base_url, project)
        out, err = io.StringIO(), io.StringIO()
        stdin = io.StringIO(user("one") + user("two", priority="later"))
        code = run_headless(session.options, "", "stream-json", out=out, err=err, session=session, input_stream=stdin)
        assert api.errors == []
    results = [json.loads(line) for line in out.getvalue().splitlines() if '"type": "result"' in line]
    assert code == 0 and [r["result"] for r in results] == ["One.", "Two."]


def test_lines_written_at_once_are_turns_of_their_own_as_in_claude_code(monkeypatch, project):
    script = [reply(text("One."), stop_reason="end_turn"), reply(text("Two."), stop_reason="end_turn")]
    with FakeAPI(script) as api:
        session, _ = make_session(monkeypatch, api.base_url, project)
        out, err = io.StringIO(), io.StringIO()
        stdin = io.StringIO(user("first question") + user("second question"))
        code = run_headless(session.options, "", "stream-json", out=out, err=err, session=session, input_stream=stdin)
        assert api.errors == []
        bodies = [r.body for r in api.message_requests]
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert code == 0 and [r["result"] for r in lines if r["type"] == "result"] == ["One.", "Two."]
    assert [e["prompt"] for e in lines if e["type"] == "turn_started"] == ["first question", "second question"]
    assert [m["content"][0]["text"] for m in bodies[0]["messages"]] == ["first question"]
    assert [m["role"] for m in bodies[1]["messages"]] == ["user", "assistant", "user"]
    assert [line.get("subtype") for line in lines if line["type"] == "system"].count("init") == 2  # one per turn


def test_bad_lines_get_one_error_line_each_and_never_a_hang(monkeypatch, project):
    with FakeAPI([reply(text("Fine."), stop_reason="end_turn")]) as api:
        session, _ = make_session(monkeypatch, api.base_url, project)
        out, err = io.StringIO(), io.StringIO()
        stdin = io.StringIO(
            "{not json\n"
            + json.dumps({"type": "telepathy"})
            + "\n"
            + json.dumps({"type": "control_request", "request_id": "req_1", "request": {"subtype": "teleport"}})
            + "\n"
            + json.dumps({"type": "keep_alive"})
            + "\n"
            + user([{"type": "image", "source": {}}])
            + user("hello")
        )
        code = run_headless(session.options, "", "stream-json", out=out, err=err, session=session, input_stream=stdin)
    assert code == 0
    problems = err.getvalue().splitlines()
    assert problems[0].startswith("agent-tui: stream-json input line 1: not JSON")
    assert problems[1] == (
        'agent-tui: stream-json input line 2: unknown message type "telepathy" (expected one '
        "of: control_request, control_response, keep_alive, user); the line is skipped."
    )
    assert 'line 5: content block 1 is of type "image", which input does not take yet (only text blocks)' in problems[2]
    assert len(problems) == 3
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    first = next(line for line in lines if line["type"] != "control_response")  # control answers go out at once
    assert first["subtype"] == "init"  # the lines about the input follow it, though read before it
    answer = next(line for line in lines if line["type"] == "control_response")
    assert answer["response"] == {
        "subtype": "error",
        "request_id": "req_1",
        "error": 'agent-tui does not handle control requests of subtype "teleport"',
    }
    assert [line["line"] for line in lines if line.get("subtype") == "input_error"] == [1, 2, 5]
    results = [line["result"] for line in lines if line["type"] == "result"]  # one per user line: none waits
    assert results == [
        'The message was not sent: content block 1 is of type "image", which input does not take yet (only text blocks).',
        "Fine.",
    ]


def test_input_that_ends_without_a_prompt_says_so(monkeypatch, project):
    with FakeAPI([]) as api:
        session, _ = make_session(monkeypatch, api.base_url, project)
        out, err = io.StringIO(), io.StringIO()
        code = run_headless(
            session.options, "", "stream-json", out=out, err=err, session=session, input_stream=io.StringIO("")
        )
    assert code == 2 and "stdin ended without a user message" in err.getvalue()


def test_a_control_handler_answers_its_subtype():
    """The extension point the Agent SDK's control protocol plugs into."""
    sent: list[dict[str, Any]] = []
    reader = StreamJsonInput(Inbox(), io.StringIO(), sent.append, io.StringIO())
    reader.controls["interrupt"] = lambda request: {"interrupted": True}
    reader.feed(json.dumps({"type": "control_request", "request_id": "r7", "request": {"subtype": "interrupt"}}), 1)
    assert sent == [
        {
            "type": "control_response",
            "response": {"subtype": "success", "request_id": "r7", "response": {"interrupted": True}},
        }
    ]


@pytest.mark.parametrize(
    "args, sentence",
    [
        (["-p", "--input-format", "stream-json"], "needs --output-format stream-json"),
        (["-p", "hi", "--input-format", "stream-json", "--output-format", "stream-json"], "leave out the PROMPT"),
        (["--input-format", "stream-json"], "applies only with -p"),
    ],
)
def test_impossible_combinations_are_refused_in_one_sentence(project, args, sentence, capsys):
    from tui.cli.main import main

    assert main([*args, "--offline", "--cwd", str(project)]) == 2
    err = capsys.readouterr().err
    assert sentence in err and len(err.strip().splitlines()) == 1


def _read_all(text: str, limit: int | None = None) -> tuple[list[str], list[str]]:
    """(the prompts queued, the error lines) after a StreamJsonInput has read `text` to its end."""
    inbox, err, emitted = Inbox(), io.StringIO(), []
    reader = StreamJsonInput(inbox, io.StringIO(text), emitted.append, err)
    if limit is not None:
        reader.line_limit = limit
    reader.run()  # returns at the end of the input: that is what ends -p
    assert all(line["subtype"] == "input_error" for line in emitted)
    return [m.text for m in inbox.take_all()], err.getvalue().splitlines()


def test_a_line_nested_200000_deep_is_one_error_and_the_next_lines_are_read() -> None:
    deep = '{"type": "user", "message": ' + "[" * 200_000 + "]" * 200_000 + "}\n"
    prompts, problems = _read_all(deep + user("after") + "{" * 5000 + "\n" + user("last"))
    assert prompts == ["after", "last"]
    assert problems == [
        "agent-tui: stream-json input line 1: it is nested more than 100 levels deep; the line is skipped.",
        "agent-tui: stream-json input line 3: it is nested more than 100 levels deep; the line is skipped.",
    ]


def test_a_line_over_the_limit_is_dropped_whole_and_its_tail_is_not_a_message() -> None:
    tail = user("the tail of the long line")
    long_line = "x" * 300 + tail  # over the limit, and what follows the cut looks like a prompt
    prompts, problems = _read_all(user("first") + long_line + user("next"), limit=200)
    assert prompts == ["first", "next"]
    assert problems == ["agent-tui: stream-json input line 2: it is longer than 200 bytes; the line is skipped."]


@pytest.mark.parametrize(
    ("block", "sentence"),
    [
        ({"type": "text", "text": 123}, 'content block 1 is a text block whose "text" is a number (123), not a string'),
        ({"type": "text", "text": None}, 'content block 1 is a text block whose "text" is null, not a string'),
        ({"type": "text", "text": ["a"]}, 'content block 1 is a text block whose "text" is a list, not a string'),
        ({"type": "text"}, 'content block 1 is a text block without a "text" string'),
        ({"text": "hi"}, 'content block 1 has no "type" (a text block is {"type": "text", "text": "..."})'),
        ({"type": 7, "text": "hi"}, 'content block 1 has a "type" that is a number (7), not a string'),
        ("hi", 'content block 1 is a string, not an object with a "type"'),
        ({"type": "image", "source": {}}, 'content block 1 is of type "image", which input does not take yet'),
    ],
)
def test_each_malformed_content_block_is_named_in_one_sentence(block: Any, sentence: str) -> None:
    prompts, problems = _read_all(user([block]) + user("fine"))
    assert prompts == ["fine"]
    assert len(problems) == 1 and sentence in problems[0], problems
    assert "not supported" not in problems[0]  # never "text blocks are not supported (only text)"
