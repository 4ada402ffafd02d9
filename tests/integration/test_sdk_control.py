"""The Agent SDK's control protocol over `-p --input-format stream-json`, driven by hand-written lines.

Each test plays the SDK program: it writes control requests and user lines to agent-tui's stdin and
answers agent-tui's own control requests (`can_use_tool`, `hook_callback`, `mcp_message`) as they
appear on stdout. Fast, and needs no SDK installed (tests/integration/test_agent_sdk.py runs the real one).
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.fakeapi import FakeAPI
from tests.fakeapi.demo_project import make_demo_project
from tests.fakeapi.script import reply, text, tool_use
from tests.integration.helpers import make_session
from tui.agent.events import HookFinished, PermissionResolved
from tui.headless.run import run_headless
from tui.mcp.config import McpServerConfig


@pytest.fixture
def project(tmp_path: Path) -> Path:
    make_demo_project(tmp_path / "proj")
    return tmp_path / "proj"


def user(content: str) -> dict[str, Any]:
    return {
        "type": "user",
        "message": {"role": "user", "content": content},
        "parent_tool_use_id": None,
        "session_id": "default",
    }


def control(request_id: str, subtype: str, **fields: Any) -> dict[str, Any]:
    return {"type": "control_request", "request_id": request_id, "request": {"subtype": subtype, **fields}}


def success(request_id: str, response: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "control_response",
        "response": {"subtype": "success", "request_id": request_id, "response": response},
    }


class Sdk:
    """Plays the Agent SDK program: run_headless on a thread, stdin and stdout as pipes, answers as they are asked."""

    def __init__(self, session: Any, *, permission_prompt: bool = False) -> None:
        in_r, in_w = os.pipe()
        out_r, out_w = os.pipe()
        self.stdin = os.fdopen(in_w, "w", buffering=1)
        self.err = io.StringIO()
        self.lines: list[dict[str, Any]] = []
        self._taken: set[int] = set()
        self._ended = False
        self._seen = threading.Condition()
        #: subtype of agent-tui's requests -> what answers them (a response dict, or None to leave it waiting)
        self.answers: dict[str, Callable[[dict[str, Any]], dict[str, Any] | None]] = {}
        self.asked: list[dict[str, Any]] = []
        self.code: int | None = None
        reader, out = os.fdopen(in_r, "r"), os.fdopen(out_w, "w")

        def run() -> None:
            try:
                self.code = run_headless(
                    session.options,
                    "",
                    "stream-json",
                    out=out,
                    err=self.err,
                    session=session,
                    input_stream=reader,
                    permission_prompt=permission_prompt,
                )
            finally:
                out.close()

        def read() -> None:
            with os.fdopen(out_r, "r") as stdout:
                for line in stdout:
                    obj = json.loads(line)
                    if obj.get("type") == "control_request" and obj["request"]["subtype"] in self.answers:
                        self.asked.append(obj)
                        answer = self.answers[obj["request"]["subtype"]](obj["request"])
                        if answer is not None:
                            self.send(success(obj["request_id"], answer))
                    with self._seen:
                        self.lines.append(obj)
                        self._seen.notify_all()
            with self._seen:
                self._ended = True
                self._seen.notify_all()

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()
        threading.Thread(target=read, daemon=True).start()

    def send(self, obj: dict[str, Any]) -> None:
        try:
            self.stdin.write(json.dumps(obj) + "\n")
        except (ValueError, OSError):  # closed by the test already
            pass

    def until(self, test: Callable[[dict[str, Any]], bool], timeout: float = 30) -> dict[str, Any]:
        """The first stdout line not taken yet that passes `test` (waiting for it)."""
        with self._seen:
            while True:
                for index, obj in enumerate(self.lines):
                    if index not in self._taken and test(obj):
                        self._taken.add(index)
                        return obj
                if self._ended:
                    raise AssertionError(f"stdout ended first; stderr: {self.err.getvalue()}")
                if not self._seen.wait(timeout):
                    raise AssertionError(f"nothing passed the test within {timeout} s; stdout: {self.lines}")

    def response(self, request_id: str) -> dict[str, Any]:
        return self.until(lambda o: o.get("type") == "control_response" and o["response"]["request_id"] == request_id)[
            "response"
        ]

    def result(self) -> dict[str, Any]:
        return self.until(lambda o: o.get("type") == "result")

    def end(self) -> int:
        self.stdin.close()
        self.thread.join(30)
        assert not self.thread.is_alive(), "agent-tui did not end after stdin closed"
        assert self.code is not None
        return self.code


def test_initialize_answers_with_what_agent_tui_offers_and_only_once(monkeypatch, project):
    with FakeAPI([]) as api:
        session, _ = make_session(monkeypatch, api.base_url, project)
        sdk = Sdk(session)
        sdk.send(control("r1", "initialize", hooks=None))
        first = sdk.response("r1")
        sdk.send(control("r2", "initialize", hooks=None))
        second = sdk.response("r2")
        sdk.send(control("r3", "get_context_usage"))
        refused = sdk.response("r3")
        sdk.send(control("r4", "initialize", hooks=None, agents={"x": {"description": "d", "prompt": "p"}}))
        agents = sdk.response("r4")
        sdk.end()
    assert first["subtype"] == "success" and first["response"]["pid"] == os.getpid()
    assert first["response"]["output_style"] == "default"
    assert second == {
        "subtype": "error",
        "request_id": "r2",
        "error": "initialize was already done for this agent-tui process",
    }
    assert refused["subtype"] == "error" and "get_context_usage is not supported" in refused["error"]
    assert "agents defined in the SDK options are not supported" in agents["error"]


def test_can_use_tool_answers_the_question_with_an_updated_input(monkeypatch, project):
    target = project / "sdk.txt"
    script = [
        reply(tool_use("Write", {"file_path": str(target), "content": "from the model\n"}), stop_reason="tool_use"),
        reply(text("Done."), stop_reason="end_turn"),
    ]
    with FakeAPI(script) as api:
        session, recorder = make_session(monkeypatch, api.base_url, project)
        sdk = Sdk(session, permission_prompt=True)
        sdk.answers["can_use_tool"] = lambda request: {
            "behavior": "allow",
            "updatedInput": {**request["input"], "content": "from the SDK\n"},
        }
        sdk.send(user("write it"))
        result = sdk.result()
        assert sdk.end() == 0
    (asked,) = sdk.asked
    request = asked["request"]
    assert request["tool_name"] == "Write" and request["input"]["content"] == "from the model\n"
    assert request["tool_use_id"] and request["permission_suggestions"][0]["behavior"] == "allow"
    assert target.read_text() == "from the SDK\n"
    assert result["result"] == "Done." and not result["is_error"]
    (resolved,) = recorder.of(PermissionResolved)  # shown like a dialog answer
    assert resolved.allowed and resolved.scope == "once" and resolved.reason == "the Agent SDK's can_use_tool"


def test_can_use_tool_deny_with_interrupt_ends_the_turn(monkeypatch, project):
    script = [
        reply(tool_use("Bash", {"command": "touch never.txt"}), stop_reason="tool_use"),
        reply(text("Should not be asked for.")),
    ]
    with FakeAPI(script) as api:
        session, _ = make_session(monkeypatch, api.base_url, project)
        sdk = Sdk(session, permission_prompt=True)
        sdk.answers["can_use_tool"] = lambda request: {"behavior": "deny", "message": "Not now.", "interrupt": True}
        sdk.send(user("touch it"))
        result = sdk.result()
        code = sdk.end()
        assert len(api.message_requests) == 1
    assert not (project / "never.txt").exists()
    assert result["stop_reason"] == "interrupted" and code == 130


def test_stdin_closing_while_can_use_tool_waits_interrupts_the_turn_in_one_sentence(monkeypatch, project):
    script = [
        reply(tool_use("Bash", {"command": "touch never.txt"}), stop_reason="tool_use"),
        reply(text("Should not be asked for.")),
    ]
    with FakeAPI(script) as api:
        session, _ = make_session(monkeypatch, api.base_url, project)
        sdk = Sdk(session, permission_prompt=True)
        sdk.answers["can_use_tool"] = lambda request: None  # the program never answers: it goes away
        sdk.send(user("touch it"))
        sdk.until(lambda o: o.get("type") == "control_request")
        code = sdk.end()
    assert code == 130 and not (project / "never.txt").exists()
    said = [line for line in sdk.err.getvalue().splitlines() if "closed agent-tui's input" in line]
    assert said == [
        "agent-tui: the Agent SDK program closed agent-tui's input (stdin) before answering "
        "(can_use_tool); the turn is interrupted."
    ]


def test_a_hook_callback_blocks_a_tool_as_a_command_hook_would(monkeypatch, project):
    target = project / "hooked.txt"
    script = [
        reply(tool_use("Write", {"file_path": str(target), "content": "x\n"}), stop_reason="tool_use"),
        reply(text("Blocked, fine.")),
    ]
    with FakeAPI(script) as api:
        session, recorder = make_session(monkeypatch, api.base_url, project, permission_mode="acceptEdits")
        sdk = Sdk(session)
        sdk.answers["hook_callback"] = lambda request: {"decision": "block", "reason": "No writes today."}
        sdk.send(
            control(
                "init",
                "initialize",
                hooks={"PreToolUse": [{"matcher": "Write|Edit", "hookCallbackIds": ["hook_0"], "timeout": 5}]},
            )
        )
        assert sdk.response("init")["subtype"] == "success"
        sdk.send(user("write"))
        sdk.result()
        assert sdk.end() == 0
        last = api.message_requests[1].body["messages"][-1]["content"][0]
    (asked,) = sdk.asked
    assert asked["request"]["callback_id"] == "hook_0" and asked["request"]["input"]["tool_name"] == "Write"
    assert asked["request"]["tool_use_id"] == last["tool_use_id"]
    assert not target.exists() and last["is_error"] and "No writes today." in json.dumps(last["content"])
    (finished,) = recorder.of(HookFinished)
    assert finished.command == "Agent SDK callback hook_0" and finished.decision == "deny"


@pytest.mark.parametrize(
    "event, sentence",
    [
        ("SubagentStart", "initialize: agent-tui does not fire SubagentStart hooks"),
        ("SessionEnd", "initialize: a SessionEnd hook cannot be a Python callback here"),
    ],
)
def test_a_hook_event_that_cannot_call_back_is_refused_at_initialize(monkeypatch, project, event, sentence):
    with FakeAPI([]) as api:
        session, _ = make_session(monkeypatch, api.base_url, project)
        sdk = Sdk(session)
        sdk.send(control("init", "initialize", hooks={event: [{"matcher": None, "hookCallbackIds": ["h"]}]}))
        answer = sdk.response("init")
        sdk.end()
    assert answer["subtype"] == "error" and answer["error"].startswith(sentence)


def test_set_permission_mode_and_set_model_apply_from_the_next_request(monkeypatch, project):
    with FakeAPI([reply(text("ok"))]) as api:
        session, _ = make_session(monkeypatch, api.base_url, project)
        sdk = Sdk(session)
        sdk.send(control("m1", "set_permission_mode", mode="acceptEdits"))
        sdk.send(control("m2", "set_permission_mode", mode="bypassPermissions"))
        sdk.send(control("m3", "set_model", model="claude-opus-5"))
        sdk.send(control("m4", "interrupt"))  # idle: nothing to stop
        answers = [sdk.response(r) for r in ("m1", "m2", "m3", "m4")]
        sdk.send(user("hi"))
        assert sdk.result()["result"] == "ok"
        assert sdk.end() == 0
        assert api.message_requests[0].body["model"] == "claude-opus-5"
    assert [a["subtype"] for a in answers] == ["success", "error", "success", "success"]
    assert "only in a session started in it" in answers[1]["error"]
    assert session.policy.mode == "acceptEdits"


def test_malformed_control_lines_get_one_sentence_each(monkeypatch, project):
    with FakeAPI([reply(text("still fine"))]) as api:
        session, _ = make_session(monkeypatch, api.base_url, project)
        sdk = Sdk(session)
        sdk.send({"type": "control_request", "request": {"subtype": "interrupt"}})
        sdk.send({"type": "control_response", "response": {"subtype": "success"}})
        sdk.send({"type": "control_response", "response": {"subtype": "success", "request_id": "nobody"}})
        sdk.send(user("hi"))
        assert sdk.result()["result"] == "still fine"
        assert sdk.end() == 0
    errors = [line["error"] for line in sdk.lines if line.get("subtype") == "input_error"]
    assert errors == [
        'stream-json input line 1: a control_request needs a string "request_id" and a "request" object; the line '
        "is skipped.",
        'stream-json input line 2: a control_response needs a "response" object with a string "request_id"; the '
        "line is skipped.",
        'stream-json input line 3: a control_response for "nobody", which agent-tui never sent; the line is skipped.',
    ]


def _mcp_server(request: dict[str, Any]) -> dict[str, Any]:
    """A tiny in-process MCP server, as the SDK's create_sdk_mcp_server answers over mcp_message."""
    message = request["message"]
    method, ident = message.get("method"), message.get("id")
    if ident is None:
        return {"mcp_response": {"jsonrpc": "2.0", "result": {}}}
    if method == "initialize":
        result: dict[str, Any] = {
            "protocolVersion": message["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "calc", "version": "1.0.0"},
        }
    elif method == "tools/list":
        result = {
            "tools": [
                {
                    "name": "add",
                    "description": "Add two numbers",
                    "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}},
                }
            ]
        }
    elif method == "tools/call":
        args = message["params"]["arguments"]
        result = {"content": [{"type": "text", "text": f"sum={args['a'] + args['b']}"}]}
    else:
        return {"mcp_response": {"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": method}}}
    return {"mcp_response": {"jsonrpc": "2.0", "id": ident, "result": result}}


def test_an_sdk_mcp_server_is_reached_over_mcp_message_and_its_tool_runs(monkeypatch, project):
    script = [reply(tool_use("mcp__calc__add", {"a": 20, "b": 22}), stop_reason="tool_use"), reply(text("42."))]
    with FakeAPI(script) as api:
        session, _ = make_session(
            monkeypatch,
            api.base_url,
            project,
            allowed_tools=["mcp__calc__add"],
            mcp_servers=[McpServerConfig("calc", "sdk", source="cli", source_path="--mcp-config")],
        )
        sdk = Sdk(session)
        sdk.answers["mcp_message"] = _mcp_server
        sdk.send(control("s1", "mcp_status"))
        sdk.send(user("add"))
        result = sdk.result()
        status = sdk.response("s1")
        assert sdk.end() == 0
        first, second = (r.body for r in api.message_requests)
    assert "mcp__calc__add" in [t["name"] for t in first["tools"]]
    answer = second["messages"][-1]["content"][0]
    assert answer["type"] == "tool_result" and "sum=42" in json.dumps(answer["content"])
    assert result["result"] == "42."
    methods = [a["request"]["message"].get("method") for a in sdk.asked]
    assert methods[:3] == ["initialize", "notifications/initialized", "tools/list"] and "tools/call" in methods
    assert status["response"]["mcpServers"][0]["name"] == "calc"


def test_sdk_servers_come_only_from_the_command_line(tmp_path):
    from tui.mcp.config import McpConfigError, parse_server

    with pytest.raises(McpConfigError, match="only with its --mcp-config"):
        parse_server("calc", {"type": "sdk", "name": "calc"}, source="project", source_path=".mcp.json")
    assert parse_server("calc", {"type": "sdk", "name": "calc"}, source="cli", source_path="x").transport == "sdk"


def _cli(args: list[str], stdin: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    full.update(env)
    return subprocess.run(
        [sys.executable, "-m", "tui.cli.main", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        env=full,
        timeout=60,
    )


#: what the Agent SDK passes its CLI for `ClaudeAgentOptions(system_prompt=None, max_turns=2, ...)`
SDK_ARGV = [
    "--output-format",
    "stream-json",
    "--verbose",
    "--system-prompt",
    "",
    "--allowedTools",
    "Read,Glob",
    "--max-turns",
    "2",
    "--disallowedTools",
    "Bash",
    "--tools",
    "Read,Glob",
    "--model",
    "claude-sonnet-5-5",
    "--permission-prompt-tool",
    "stdio",
    "--permission-mode",
    "default",
    "--setting-sources=user,project,local",
    "--max-thinking-tokens",
    "0",
    "--input-format",
    "stream-json",
]


def test_the_flags_the_sdk_passes_run_without_dash_p(project, tmp_path):
    lines = [control("i", "initialize", hooks=None), user("hi")]
    with FakeAPI([reply(text("hello back"))]) as api:
        proc = _cli(
            SDK_ARGV,
            "".join(json.dumps(line) + "\n" for line in lines),
            project,
            {"ANTHROPIC_BASE_URL": api.base_url, "ANTHROPIC_API_KEY": "sk-test", "HOME": str(tmp_path)},
        )
        body = api.message_requests[0].body
    assert proc.returncode == 0, proc.stderr
    out = [json.loads(line) for line in proc.stdout.splitlines()]
    assert out[-1]["type"] == "result" and out[-1]["result"] == "hello back"
    assert any(o["type"] == "control_response" and o["response"]["subtype"] == "success" for o in out)
    assert "agent-tui" not in json.dumps(body["system"][0])  # "" leaves agent-tui's instructions out
    assert [t["name"] for t in body["tools"]] == ["Read", "Glob"]  # --tools
    assert "thinking" not in body or body["thinking"].get("type") != "enabled"


def test_a_flag_agent_tui_cannot_honour_is_one_sentence_and_an_error_result(project):
    proc = _cli([*SDK_ARGV, "--json-schema", "{}"], "", project, {})
    assert proc.returncode == 2
    (line,) = proc.stdout.splitlines()
    result = json.loads(line)
    assert (
        result["type"] == "result"
        and result["is_error"]
        and result["errors"] == ["--json-schema (structured output) is not supported by agent-tui."]
    )
    assert proc.stderr.strip() == "agent-tui: --json-schema (structured output) is not supported by agent-tui."


def test_a_plain_print_run_imports_nothing_of_the_sdk_control(project):
    code = (
        "import sys; from tui.cli.main import main; rc = main(['-p', 'hi', '--offline', '--cwd', sys.argv[1]]); "
        "print(sorted(m for m in sys.modules if m.startswith(('tui.headless.sdk_control', 'tui.mcp.sdk_transport', "
        "'tui.cli.sdk', 'tui.headless.stream_events'))))"
    )
    proc = subprocess.run([sys.executable, "-c", code, str(project)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "[]"


def _running(marker: str) -> list[int]:
    """Pids of processes whose command line holds `marker`."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and marker in (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode():
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def test_a_program_that_goes_away_mid_turn_stops_the_turn_and_leaves_no_process(project, tmp_path):
    """The SDK program dies while a command runs: agent-tui says so once, ends the command and exits."""
    marker = "sleep 61.25"
    script = [reply(tool_use("Bash", {"command": marker}), stop_reason="tool_use"), reply(text("never read"))]
    with FakeAPI(script) as api:
        env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
        env.update(ANTHROPIC_BASE_URL=api.base_url, ANTHROPIC_API_KEY="sk-test", HOME=str(tmp_path))
        errors = (tmp_path / "stderr.txt").open("w")
        argv = [
            "--output-format",
            "stream-json",
            "--verbose",
            "--permission-mode",
            "bypassPermissions",
            "--input-format",
            "stream-json",
        ]
        proc = subprocess.Popen(
            [sys.executable, "-m", "tui.cli.main", *argv],
            cwd=project,
            env=env,
            text=True,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=errors,
        )
        assert proc.stdin is not None and proc.stdout is not None
        watchdog = threading.Timer(60, proc.kill)  # never a hang, whatever goes wrong
        watchdog.daemon = True
        watchdog.start()
        proc.stdin.write(json.dumps(user("sleep")) + "\n")
        proc.stdin.flush()
        for line in proc.stdout:
            if json.loads(line).get("type") == "tool_started":
                break
        for _ in range(100):  # the command has started
            if _running(marker):
                break
            threading.Event().wait(0.05)
        assert _running(marker)
        proc.stdin.close()
        proc.stdout.close()  # both pipes gone, as when the program dies
        code = proc.wait(20)
        watchdog.cancel()
        errors.close()
    said = (tmp_path / "stderr.txt").read_text()
    assert code == 141, said
    assert said.count("the Agent SDK program went away") == 1
    assert _running(marker) == []


def test_partial_messages_include_claude_code_stream_events(monkeypatch, project):
    with FakeAPI([reply(text("Piece by piece."))]) as api:
        session, _ = make_session(monkeypatch, api.base_url, project)
        out, err = io.StringIO(), io.StringIO()
        code = run_headless(
            session.options,
            "",
            "stream-json",
            partial=True,
            out=out,
            err=err,
            session=session,
            input_stream=io.StringIO(json.dumps(user("hi")) + "\n"),
        )
    assert code == 0, err.getvalue()
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert lines[0]["subtype"] == "init"  # first, though stdin was read before it was written
    events = [line["event"] for line in lines if line["type"] == "stream_event"]
    assert [e["type"] for e in events][:2] == ["message_start", "content_block_start"]
    assert "".join(e["delta"]["text"] for e in events if e["type"] == "content_block_delta") == "Piece by piece."
    assert "block_delta" in [line["type"] for line in lines]  # agent-tui's own lines stay


def test_an_sdk_mcp_server_can_be_toggled_and_reconnected(monkeypatch, project):
    with FakeAPI([]) as api:
        session, _ = make_session(
            monkeypatch,
            api.base_url,
            project,
            mcp_servers=[McpServerConfig("calc", "sdk", source="cli", source_path="--mcp-config")],
        )
        sdk = Sdk(session)
        sdk.answers["mcp_message"] = _mcp_server
        statuses = []
        for request_id, subtype, fields in (
            ("t1", "mcp_toggle", {"serverName": "calc", "enabled": False}),
            ("s1", "mcp_status", {}),
            ("t2", "mcp_toggle", {"serverName": "calc", "enabled": True}),
            ("r1", "mcp_reconnect", {"serverName": "calc"}),
            ("r2", "mcp_reconnect", {"serverName": "nope"}),
        ):
            sdk.send(control(request_id, subtype, **fields))
            statuses.append(sdk.response(request_id))
        assert session.mcp.manager.wait(timeout=30)
        state = session.mcp.manager.states["calc"]
        status, tools = state.status, [t["name"] for t in state.tools]
        sdk.end()
    assert [s["subtype"] for s in statuses] == ["success", "success", "success", "success", "error"]
    assert statuses[1]["response"]["mcpServers"][0]["status"] == "disabled"
    assert "there is no MCP server named 'nope' (configured: calc)" in statuses[4]["error"]
    assert status == "connected" and tools == ["add"]
