"""The transport to an SDK MCP server: one `mcp_message` control request per JSON-RPC message.

A Claude Agent SDK program serves its `create_sdk_mcp_server` tools in its own process. It names
them in `--mcp-config` with `"type": "sdk"`, and agent-tui talks to them over the control protocol
on stdin/stdout: each JSON-RPC message goes out as a `control_request` of subtype `mcp_message`,
and the SDK's `control_response` carries the server's JSON-RPC reply. To the `mcp` client session
this is a pair of streams like any other transport's, so listing, calls, the permission gate and
the inspector are the same as for every MCP server. Runs on the MCP event loop only.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from concurrent.futures import Future
from contextlib import asynccontextmanager
from typing import Any

import anyio
from mcp.shared.message import SessionMessage
from mcp_types import jsonrpc_message_adapter

from tui.mcp.config import McpServerConfig

#: sends one control request payload to the SDK; the future holds its `response`, or raises with the SDK's error
SdkChannel = Callable[[dict[str, Any]], "Future[dict[str, Any]]"]
NO_CHANNEL = (
    'it is an Agent SDK server ("type": "sdk"), served only by the Claude Agent SDK program that '
    "started agent-tui with --input-format stream-json"
)


def _wire(item: SessionMessage) -> dict[str, Any]:
    return item.message.model_dump(by_alias=True, mode="json", exclude_none=True)


def _error_reply(ident: Any, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": ident, "error": {"code": -32603, "message": message}}


@asynccontextmanager
async def sdk_streams(config: McpServerConfig, channel: SdkChannel | None) -> AsyncIterator[tuple[Any, Any]]:
    """(read, write) streams of SessionMessage to the SDK server `config.name`, over `channel`."""
    if channel is None:
        raise ConnectionError(NO_CHANNEL)
    read_send, read_recv = anyio.create_memory_object_stream[SessionMessage | Exception](64)
    write_send, write_recv = anyio.create_memory_object_stream[SessionMessage](64)

    async def exchange(message: dict[str, Any]) -> None:
        """Send one message; a request's reply (or an error reply saying why there is none) comes back."""
        future = channel({"subtype": "mcp_message", "server_name": config.name, "message": message})
        if "id" not in message or "method" not in message:  # a notification or a response: only acknowledged
            return
        try:
            response = await asyncio.wrap_future(future)
            reply = response.get("mcp_response") if isinstance(response, dict) else None
            if not isinstance(reply, dict):
                reply = _error_reply(message["id"], "the Agent SDK answered without an mcp_response")
        except Exception as exc:  # noqa: BLE001 - the SDK's error, or the channel closing: this request fails
            reply = _error_reply(message["id"], str(exc) or type(exc).__name__)
        try:
            parsed = jsonrpc_message_adapter.validate_python(reply, by_name=False)
        except ValueError:
            parsed = jsonrpc_message_adapter.validate_python(
                _error_reply(message["id"], "the SDK server's reply is not JSON-RPC"), by_name=False
            )
        try:
            await read_send.send(SessionMessage(parsed))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            pass  # the session ended meanwhile

    async def pump(group: anyio.abc.TaskGroup) -> None:
        async with write_recv:
            async for item in write_recv:
                group.start_soon(exchange, _wire(item))  # concurrent: parallel tool calls wait on their own

    async with anyio.create_task_group() as group:
        group.start_soon(pump, group)
        try:
            async with read_send:
                yield read_recv, write_send
        finally:
            group.cancel_scope.cancel()
