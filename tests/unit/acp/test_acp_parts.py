"""The ACP server's pure parts: the line check, prompt blocks, history replay, what may go through a client."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("acp", reason="the ACP SDK (agent-client-protocol, in the test extra) is not installed")

from acp import image_block, resource_link_block, text_block
from acp.schema import EmbeddedResourceContentBlock, TextResourceContents

from tui.acp.files import plain_text
from tui.acp.prompt import file_path, split
from tui.acp.server import problem_of
from tui.acp.updates import STOP_REASONS, history, tool_kind


@pytest.mark.parametrize(
    ("line", "code"),
    [
        (b"{not json", -32700),
        (b"\xff\xfe\x00", -32700),
        (b"[]", -32600),
        (b'"text"', -32600),
        (b'{"id": true, "method": "x"}', -32600),
        (b'{"id": 1}', -32600),
        (b'{"id": 1, "method": []}', -32600),
        (b'{"id": 1, "method": "session/new", "params": 3}', -32602),
    ],
)
def test_lines_that_are_no_json_rpc_message_get_an_error_code(line: bytes, code: int) -> None:
    problem = problem_of(line)
    assert problem is not None and problem[1] == code and problem[2].endswith(".")


def test_requests_notifications_and_answers_pass() -> None:
    assert problem_of(b'{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}') is None
    assert problem_of(b'{"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "s"}}') is None
    assert problem_of(b'{"jsonrpc": "2.0", "id": 0, "result": {"outcome": {"outcome": "cancelled"}}}') is None


def test_prompt_blocks_become_text_files_context_and_notices() -> None:
    parts = split(
        [
            text_block("look"),
            resource_link_block("a.py", "file:///p/a%20b.py"),
            resource_link_block("docs", "https://example.com/docs"),
            EmbeddedResourceContentBlock(type="resource", resource=TextResourceContents(uri="zed://sel", text="x = 1")),
            image_block("AAAA", "image/png"),
        ]
    )
    assert parts.text == "look"
    assert [(f.path, f.shown, f.text) for f in parts.files] == [("/p/a b.py", "a.py", None)]
    assert parts.context == [
        "[The user attached docs: https://example.com/docs]",
        '<resource uri="zed://sel">\nx = 1\n</resource>',
    ]
    assert len(parts.notices) == 1 and parts.notices[0].startswith("The image was not attached")
    assert file_path("file://remotehost/x") is None and file_path("/abs") == "/abs"


def test_only_plain_utf8_text_goes_through_a_client() -> None:
    assert plain_text(b"def f():\n    return 1\n") == "def f():\n    return 1\n"
    for data in (b"a\r\nb\r\n", b"\xef\xbb\xbfbom", b"\xff\xfe", b"nul\x00", b"x" * (1 << 20 + 1)):
        assert plain_text(data) is None


def test_a_saved_history_replays_prompts_answers_tool_calls_and_the_plan() -> None:
    todos = [{"content": "Fix", "status": "completed", "activeForm": "Fixing"}]
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "fix it"}]},
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "hm", "signature": "s"},
                {"type": "text", "text": "On it."},
                {"type": "tool_use", "id": "t1", "name": "Edit", "input": {"file_path": "a.py"}},
                {"type": "tool_use", "id": "t2", "name": "TodoWrite", "input": {"todos": todos}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": "no", "is_error": True},
                {"type": "tool_result", "tool_use_id": "t2", "content": "ok"},
            ],
        },
    ]
    updates = list(history(messages, {}, lambda p: Path("/proj") / p))
    assert [u.session_update for u in updates] == [
        "user_message_chunk",
        "agent_thought_chunk",
        "agent_message_chunk",
        "tool_call",
        "tool_call",
        "tool_call_update",
        "tool_call_update",
        "plan",
    ]
    assert updates[3].kind == "edit" and updates[3].locations[0].path == "/proj/a.py"
    assert [updates[5].status, updates[6].status] == ["failed", "completed"]
    assert updates[7].entries[0].status == "completed"


def test_kinds_and_stop_reasons() -> None:
    assert [tool_kind(n) for n in ("Bash", "Grep", "WebFetch", "mcp__x__y")] == ["execute", "search", "fetch", "other"]
    assert STOP_REASONS["interrupted"] == "cancelled" and STOP_REASONS["max_turns"] == "max_turn_requests"
    assert "api_error" not in STOP_REASONS  # an error answers the prompt with a JSON-RPC error instead
