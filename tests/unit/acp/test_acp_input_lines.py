"""The check in front of the ACP SDK: a deeply nested line or one over the limit is one error, the rest is read."""

from __future__ import annotations

import asyncio
import io
import json

from tui.acp.server import check_input

INITIALIZE = {"jsonrpc": "2.0", "id": 9, "method": "initialize", "params": {"protocolVersion": 1}}


class Writer:
    """What `check_input` writes its error answers to."""

    def __init__(self) -> None:
        self.lines: list[dict] = []

    def write(self, data: bytes) -> None:
        self.lines += [json.loads(line) for line in data.splitlines()]


async def run(data: bytes, limit: int = 1 << 20) -> tuple[list[dict], list[dict], str]:
    """(messages passed on to the SDK, error answers, stderr) once `check_input` has read `data` to its end."""
    raw, checked, writer, err = asyncio.StreamReader(limit=limit), asyncio.StreamReader(), Writer(), io.StringIO()
    raw.feed_data(data)
    raw.feed_eof()
    await asyncio.wait_for(check_input(raw, checked, writer, err, limit), 30)  # type: ignore[arg-type]
    passed = [json.loads(line) for line in (await checked.read()).splitlines()]  # read() returns: EOF was fed
    return passed, writer.lines, err.getvalue()


async def test_a_line_nested_200000_deep_is_answered_and_the_next_line_is_read() -> None:
    deep = b'{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": ' + b"[" * 200_000 + b"]" * 200_000 + b"}\n"
    passed, errors, err = await run(deep + json.dumps(INITIALIZE).encode() + b"\n")
    assert passed == [INITIALIZE]
    assert [(e["id"], e["error"]["code"]) for e in errors] == [(None, -32600)]
    assert err.strip() == "agent-tui acp: A message nested more than 100 levels deep was ignored."


async def test_a_line_over_the_limit_is_dropped_whole_and_its_tail_is_no_message() -> None:
    tail = json.dumps({**INITIALIZE, "id": 5}).encode()
    first = json.dumps(INITIALIZE).encode() + b"\n"
    passed, errors, err = await run(first + b"x" * 5000 + tail + b"\n" + first, limit=1000)
    assert passed == [INITIALIZE, INITIALIZE]  # id 5, the tail of the long line, never reached the SDK
    assert [(e["id"], e["error"]["code"]) for e in errors] == [(None, -32600)]
    assert "A message longer than 1,000 bytes was ignored." in err


async def test_a_long_line_at_the_end_of_input_ends_the_reading() -> None:
    passed, errors, _ = await run(json.dumps(INITIALIZE).encode() + b"\n" + b"y" * 5000, limit=1000)
    assert passed == [INITIALIZE] and len(errors) == 1
