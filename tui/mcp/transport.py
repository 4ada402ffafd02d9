"""Transports to one MCP server, each tapped so every JSON-RPC message is seen in order.

stdio servers are spawned through the process tracker (`tui/tools/processes.py`), so each
runs in its own process group that `cleanup()` ends at exit, with stderr going to a log
file per server; its own exit ends the connection even when a child of it still holds stdout. A line on stdout that is not JSON-RPC is skipped and reported (the
session goes on). HTTP and SSE use the SDK's clients. Runs on the MCP event loop only.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
from mcp.shared.message import SessionMessage
from mcp_types import jsonrpc_message_adapter

from tui.mcp.config import McpServerConfig, ServerCwdMissing, cwd_problem, server_cwd
from tui.tools.processes import TrackedProcess, tracker

#: called with ("send" | "recv", the message as a dict)
Tap = Callable[[str, dict[str, Any]], None]
#: looks at (and may mend) each message from the server before the SDK validates it
Screen = Callable[[Any], None]
#: called with a sentence about something odd the server did (non-JSON on stdout)
Warn = Callable[[str], None]
#: seconds a stdio server gets to leave after its stdin closes, before its tree is killed
CLOSE_GRACE = 1.0
#: how often a stdio server's own exit is looked for, and how long its last output may still arrive after it
EXIT_POLL, DRAIN_AFTER_EXIT = 0.25, 0.2
#: a longest line read from a server's stdout (a huge result is one line)
LINE_LIMIT = 64 * 1024 * 1024


def _as_dict(item: SessionMessage) -> dict[str, Any]:
    return item.message.model_dump(by_alias=True, mode="json", exclude_none=True)


class _Delegate:
    """Closing and every other attribute go to the wrapped stream."""

    inner: Any

    async def aclose(self) -> None:
        await self.inner.aclose()

    async def __aenter__(self) -> Any:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


class _TappedRead(_Delegate):
    """A read stream that shows each message to `tap` and sets `closed` when the server side ends."""

    def __init__(self, inner: Any, tap: Tap, closed: anyio.Event, screen: Screen) -> None:
        self.inner, self.tap, self.closed, self.screen = inner, tap, closed, screen

    async def receive(self) -> Any:
        try:
            item = await self.inner.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            self.closed.set()
            raise
        if isinstance(item, SessionMessage):
            self.screen(item.message)
            self.tap("recv", _as_dict(item))
        return item

    def __aiter__(self) -> _TappedRead:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            raise StopAsyncIteration from None


class _TappedWrite(_Delegate):
    """A write stream that shows each message to `tap` before it leaves."""

    def __init__(self, inner: Any, tap: Tap) -> None:
        self.inner, self.tap = inner, tap

    async def send(self, item: SessionMessage) -> None:
        self.tap("send", _as_dict(item))
        await self.inner.send(item)


def server_env(config: McpServerConfig, project_dir: Path) -> dict[str, str]:
    """The environment of a stdio server: ours, its own `env`, and CLAUDE_PROJECT_DIR (as Claude Code)."""
    return {**os.environ, "CLAUDE_PROJECT_DIR": str(project_dir), **dict(config.env)}


@asynccontextmanager
async def tracked_stdio(
    config: McpServerConfig,
    project_dir: Path,
    log_path: Path,
    warn: Warn,
    on_spawn: Callable[[TrackedProcess], None] | None = None,
) -> AsyncIterator[tuple[Any, Any]]:
    """Spawn a stdio server through the tracker; yields (read, write) streams of SessionMessage."""
    from tui.system.private_files import open_private

    log = open_private(log_path, "ab", buffering=0)  # 0600 in a 0700 folder; the server writes it for its whole life
    log.write(f"--- {time.strftime('%Y-%m-%d %H:%M:%S')} starting {config.command} {' '.join(config.args)}\n".encode())
    cwd = server_cwd(config, project_dir)
    if problem := cwd_problem(config, project_dir):
        log.close()
        raise ServerCwdMissing(problem)
    try:
        proc = tracker().spawn(
            [config.command, *config.args],
            env=server_env(config, project_dir),
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log,
        )
    except BaseException:
        log.close()
        raise
    if on_spawn is not None:
        on_spawn(proc)
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=LINE_LIMIT)
    read_transport, _ = await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), proc.popen.stdout)
    write_transport, write_protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, proc.popen.stdin)
    writer = asyncio.StreamWriter(write_transport, write_protocol, None, loop)
    read_send, read_recv = anyio.create_memory_object_stream[SessionMessage | Exception](64)
    write_send, write_recv = anyio.create_memory_object_stream[SessionMessage](64)

    async def pump_out() -> None:
        async with read_send:
            while True:
                try:
                    line = await reader.readline()
                except (ValueError, asyncio.LimitOverrunError):
                    warn(f"wrote a line longer than {LINE_LIMIT // (1024 * 1024)} MB on stdout; it was skipped")
                    continue
                if not line:
                    return
                text = line.decode("utf-8", "replace").strip()
                if not text:
                    continue
                try:
                    message = jsonrpc_message_adapter.validate_json(text, by_name=False)
                except ValueError:
                    warn(f"wrote a line that is not JSON-RPC on stdout ({text[:80]!r}); it was ignored")
                    continue
                await read_send.send(SessionMessage(message))

    async def pump_in() -> None:
        async with write_recv:
            async for item in write_recv:
                data = item.message.model_dump_json(by_alias=True, exclude_unset=True)
                try:
                    writer.write(data.encode() + b"\n")
                    await writer.drain()
                except (ConnectionError, OSError):
                    return

    async def watch_exit() -> None:
        """The server exited but a child of it holds stdout open: end the stream as if it had closed."""
        while proc.popen.poll() is None:
            await asyncio.sleep(EXIT_POLL)
        await asyncio.sleep(DRAIN_AFTER_EXIT)
        read_transport.close()  # the reader sees the end; closing the connection kills the tree

    try:
        async with anyio.create_task_group() as group:
            group.start_soon(pump_out)
            group.start_soon(pump_in)
            group.start_soon(watch_exit)
            try:
                yield read_recv, write_send
            finally:
                group.cancel_scope.cancel()
    finally:
        with anyio.CancelScope(shield=True):
            writer.close()
            await _stop(proc)
            write_transport.close()
            log.close()


async def _stop(proc: TrackedProcess) -> None:
    """Close stdin (done by the caller), give the server CLOSE_GRACE seconds, then end its whole tree."""
    deadline = time.monotonic() + CLOSE_GRACE
    while proc.popen.poll() is None and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    await asyncio.to_thread(tracker().kill, proc, 0.5)


@asynccontextmanager
async def open_transport(
    config: McpServerConfig,
    project_dir: Path,
    log_path: Path,
    tap: Tap,
    warn: Warn,
    closed: anyio.Event,
    screen: Screen,
    on_spawn: Callable[[TrackedProcess], None] | None = None,
    sdk_channel: Any = None,
) -> AsyncIterator[tuple[Any, Any]]:
    """(read, write) streams to the server of `config`, tapped, with `closed` set when its side ends.

    `sdk_channel` reaches an Agent SDK server (`"type": "sdk"`, tui/mcp/sdk_transport.py).
    """
    if config.transport == "stdio":
        context = tracked_stdio(config, project_dir, log_path, warn, on_spawn)
    elif config.transport == "sdk":
        from tui.mcp.sdk_transport import sdk_streams

        context = sdk_streams(config, sdk_channel)
    elif config.transport == "http":
        from mcp.client.streamable_http import streamable_http_client
        from mcp.shared._httpx_utils import create_mcp_http_client

        from tui.mcp.oauth import auth_for  # OAuth when the server answers 401 (tui/mcp/oauth.py)

        client = create_mcp_http_client(headers=dict(config.headers) or None, auth=auth_for(config, announce=warn))
        context = _http(streamable_http_client(config.url, http_client=client), client)
    else:
        from mcp.client.sse import sse_client

        from tui.mcp.oauth import auth_for

        context = sse_client(config.url, headers=dict(config.headers) or None, auth=auth_for(config, announce=warn))
    async with context as streams:
        yield _TappedRead(streams[0], tap, closed, screen), _TappedWrite(streams[1], tap)


@asynccontextmanager
async def _http(context: Any, client: Any) -> AsyncIterator[Any]:
    async with client, context as streams:
        yield streams


def message_summary(message: dict[str, Any]) -> str:
    """A short one-line form of a JSON-RPC message (method or result/error, with the id)."""
    ident = f"#{message['id']} " if "id" in message else ""
    if "method" in message:
        return f"{ident}{message['method']}"
    if "error" in message:
        return f"{ident}error {json.dumps(message['error'])[:120]}"
    return f"{ident}result"
