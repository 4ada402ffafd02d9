"""`agent-tui acp` against a client that misbehaves: one clear error each, the sessions go on, nothing left behind."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from acp import RequestError, text_block

from tests.fakeapi import FakeAPI, reply, text, tool_use
from tests.fakeapi.demo_project import make_demo_project
from tests.integration.acp_helpers import Client, acp_env, agent, hang_up, sessions_dir, stderr_of


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_demo_project(tmp_path / "proj")


def talk(project: Path, home: Path, lines: list[str]) -> tuple[list[dict], str, int]:
    """Raw lines to `agent-tui acp` from a file, its answers into a file: (the answers, its stderr, its exit code)."""
    requests, answers = home / "requests.jsonl", home / "answers.jsonl"
    requests.write_text("".join(lines))
    with requests.open("rb") as stdin, answers.open("wb") as stdout:
        proc = subprocess.run(
            [sys.executable, "-m", "tui.cli.main", "acp"],
            stdin=stdin,
            stdout=stdout,
            stderr=subprocess.PIPE,
            cwd=project,
            env=acp_env(home, None),
            timeout=90,
        )
    return [json.loads(line) for line in answers.read_text().splitlines()], proc.stderr.decode(), proc.returncode


INITIALIZE = '{"jsonrpc": "2.0", "id": 9, "method": "initialize", "params": {"protocolVersion": 1}}\n'


def test_malformed_lines_get_one_error_each_and_the_connection_goes_on(project: Path, tmp_path: Path) -> None:
    answers, stderr, code = talk(
        project,
        tmp_path,
        [
            "this is not json\n",
            "[1, 2]\n",
            "42\n",
            '{"jsonrpc": "2.0", "id": 1}\n',
            '{"jsonrpc": "2.0", "id": 2, "method": 7}\n',
            '{"jsonrpc": "2.0", "id": 3, "method": "initialize", "params": 5}\n',
            INITIALIZE,
        ],
    )
    errors = [(a["id"], a["error"]["code"]) for a in answers if "error" in a]
    assert errors == [(None, -32700), (None, -32600), (None, -32600), (1, -32600), (2, -32600), (3, -32602)]
    assert [a["result"]["agentInfo"]["name"] for a in answers if a.get("id") == 9] == ["agent-tui"]
    lines = stderr.splitlines()
    assert len(lines) == 6 and all(line.startswith("agent-tui acp: ") and line.endswith(".") for line in lines)
    assert "not valid JSON" in lines[0] and "Traceback" not in stderr and code == 0


def test_a_line_nested_200000_deep_is_one_error_the_next_is_answered_and_end_of_input_ends_it(
    project: Path, tmp_path: Path
) -> None:
    deep = '{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": ' + "[" * 200_000 + "]" * 200_000 + "}\n"
    answers, stderr, code = talk(project, tmp_path, [deep, INITIALIZE])  # returns only once the process ended
    assert [(a["id"], a["error"]["code"]) for a in answers if "error" in a] == [(None, -32600)]
    assert [a["id"] for a in answers if "result" in a] == [9]
    assert "nested more than 100 levels deep" in stderr and "Traceback" not in stderr and code == 0


def test_an_unknown_method_is_answered_method_not_found_and_said(project: Path, tmp_path: Path) -> None:
    answers, stderr, code = talk(
        project,
        tmp_path,
        [
            '{"jsonrpc": "2.0", "id": 1, "method": "session/teleport", "params": {}}\n',
            '{"jsonrpc": "2.0", "method": "session/wave", "params": {}}\n',
            INITIALIZE,
        ],
    )
    assert answers[0]["id"] == 1 and answers[0]["error"]["code"] == -32601
    assert answers[1]["id"] == 9 and "result" in answers[1]  # the notification is not answered; the next one is
    assert "'session/teleport', which agent-tui does not offer" in stderr and "'session/wave'" in stderr
    assert "Traceback" not in stderr and code == 0


async def test_a_prompt_for_an_unknown_session_is_refused_and_the_real_one_works(project: Path, tmp_path: Path) -> None:
    client = Client()
    with FakeAPI([reply(text("Here."))]) as api:
        async with agent(client, project, tmp_path, api.base_url) as (conn, _):
            session = await conn.new_session(cwd=str(project), mcp_servers=[])
            with pytest.raises(RequestError) as refused:
                await conn.prompt(session_id="no-such-session", prompt=[text_block("hello?")])
            await conn.cancel(session_id="no-such-session")
            with pytest.raises(RequestError) as bad_cwd:
                await conn.new_session(cwd="relative/folder", mcp_servers=[])
            answer = await conn.prompt(session_id=session.session_id, prompt=[text_block("hello")])
    assert refused.value.code == -32602
    assert str(refused.value) == (
        "No session 'no-such-session' in this agent-tui process: create one with session/new, "
        "or load a saved one with session/load."
    )
    assert "absolute path" in str(bad_cwd.value)
    assert answer.stop_reason == "end_turn" and client.text() == "Here."
    assert "session/cancel names no session of this process" in stderr_of(tmp_path)


def _running(marker: str) -> list[int]:
    """The processes whose command line holds `marker`."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and marker.encode() in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue
    return found


async def _until(check: object) -> None:
    while not check():  # type: ignore[operator]
        await asyncio.sleep(0.05)


async def test_a_client_leaving_mid_command_ends_the_turn_kills_the_command_and_keeps_the_transcript(
    project: Path, tmp_path: Path
) -> None:
    marker = f"300.{uuid.uuid4().int % 10**8:08d}"  # a sleep this test alone runs
    script = [
        reply(tool_use("Bash", {"command": f"sleep {marker}", "description": "wait"}), stop_reason="tool_use"),
        reply(text("never sent")),
    ]
    client = Client()
    with FakeAPI(script) as api:
        async with agent(client, project, tmp_path, api.base_url, "--allowedTools", "Bash(sleep:*)") as (conn, proc):
            session = await conn.new_session(cwd=str(project), mcp_servers=[])
            turn = asyncio.create_task(conn.prompt(session_id=session.session_id, prompt=[text_block("run it")]))
            await client.wait_for(lambda c: any(u.status == "in_progress" for u in c.of("tool_call_update")))
            await _until(lambda: _running(f"sleep\x00{marker}"))
            code = await hang_up(conn, proc)
            with pytest.raises(Exception):  # noqa: B017 - whatever the SDK raises for a dropped connection
                await turn
    assert code == 0
    assert _running(f"sleep\x00{marker}") == []  # no orphan
    said = stderr_of(tmp_path)
    [transcript] = sessions_dir(tmp_path).rglob(f"{session.session_id}.jsonl")
    assert f"the client left during a turn of session {session.session_id}; the turn was interrupted" in said
    assert str(transcript) in said and "Traceback" not in said
    records = [json.loads(line) for line in transcript.read_text().splitlines()]
    assert any(r.get("type") == "message" and r["message"]["content"][0].get("text") == "run it" for r in records)
    assert any(
        r.get("type") == "event" and r["event"]["type"] == "ToolFinished" and r["event"]["status"] == "interrupted"
        for r in records
    )


async def test_a_client_leaving_with_a_question_open_ends_cleanly(project: Path, tmp_path: Path) -> None:
    never: asyncio.Future = asyncio.get_running_loop().create_future()
    client = Client(answer=lambda call, options: never)
    script = [reply(tool_use("Write", {"file_path": "new.txt", "content": "x"}), stop_reason="tool_use")]
    with FakeAPI(script) as api:
        async with agent(client, project, tmp_path, api.base_url) as (conn, proc):
            session = await conn.new_session(cwd=str(project), mcp_servers=[])
            turn = asyncio.create_task(conn.prompt(session_id=session.session_id, prompt=[text_block("write")]))
            await client.wait_for(lambda c: bool(c.asked))
            code = await hang_up(conn, proc)
            never.cancel()
            with pytest.raises(Exception):  # noqa: B017 - whatever the SDK raises for a dropped connection
                await turn
    assert code == 0 and not (project / "new.txt").exists()
    assert "the turn was interrupted" in stderr_of(tmp_path)


async def test_sigterm_mid_turn_exits_cleanly_with_143(project: Path, tmp_path: Path) -> None:
    never: asyncio.Future = asyncio.get_running_loop().create_future()
    client = Client(answer=lambda call, options: never)
    script = [reply(tool_use("Write", {"file_path": "new.txt", "content": "x"}), stop_reason="tool_use")]
    with FakeAPI(script) as api:
        async with agent(client, project, tmp_path, api.base_url) as (conn, proc):
            session = await conn.new_session(cwd=str(project), mcp_servers=[])
            turn = asyncio.create_task(conn.prompt(session_id=session.session_id, prompt=[text_block("write")]))
            await client.wait_for(lambda c: bool(c.asked))
            os.kill(proc.pid, signal.SIGTERM)
            code = await asyncio.wait_for(proc.wait(), timeout=60)
            never.cancel()
            with pytest.raises(Exception):  # noqa: B017 - whatever the SDK raises for a dropped connection
                await turn
    assert code == 128 + signal.SIGTERM and "Traceback" not in stderr_of(tmp_path)


def test_the_app_and_print_mode_never_import_the_acp_sdk(project: Path) -> None:
    code = (
        "import sys, tui.cli.main, tui.ui.app\n"
        "from tui.cli.main import main\n"
        "rc = main(['-p', 'hello', '--offline', '--cwd', sys.argv[1]])\n"
        "loaded = [m for m in sys.modules if m == 'acp' or m.startswith(('acp.', 'tui.acp'))]\n"
        "assert not loaded, loaded\n"
        "sys.exit(rc)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code, str(project)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
