"""The Claude Agent SDK's control protocol over `-p --input-format stream-json` (agent-tui as the SDK's CLI).

Both directions share stdin/stdout with the user and result lines:

- SDK -> agent-tui: `control_request` lines (`initialize`, `interrupt`, `set_permission_mode`, …), each
  answered with a `control_response` (requests.py).
- agent-tui -> SDK: `can_use_tool` (permissions.py), `hook_callback` (hooks.py) and `mcp_message`
  (tui/mcp/sdk_transport.py), sent through one ControlChannel whose answers arrive as
  `control_response` lines (channel.py).

Imported only with stream-json input; never imports Textual. Everything goes through the same gate,
hooks and MCP registry as the rest, and shows as the same events.
"""

from __future__ import annotations

from typing import Any, TextIO

from tui.agent.events import BlockDelta, BlockFinished, BlockStarted, McpMessage, ToolOutput
from tui.headless_input import StreamJsonInput
from tui.sanitize import visible

from .channel import ControlChannel
from .permissions import PermissionBridge
from .requests import SdkRequests

#: the sentence a request still waiting gets when stdin ends
INPUT_CLOSED = "the Agent SDK program closed agent-tui's input (stdin) before answering"


def attach(session: Any, reader: StreamJsonInput, err: TextIO, *, permission_prompt: bool) -> SdkRequests:
    """Plug the control protocol into `reader` for `session`; `permission_prompt`: can_use_tool answers questions."""
    channel = ControlChannel(reader.emit)
    requests = SdkRequests(session, channel)
    reader.controls.update(requests.handlers())
    reader.handlers["control_response"] = channel.on_response
    reader.on_end.append(lambda: channel.close(INPUT_CLOSED))

    def lost(subtypes: list[str]) -> None:
        """stdin ended while agent-tui waited on the SDK: the program is gone, so the turn stops here."""
        err.write(visible(f"agent-tui: {INPUT_CLOSED} ({', '.join(sorted(set(subtypes)))}); the turn is "
                          "interrupted.") + "\n")
        err.flush()
        session.cancel()

    channel.on_lost = lost
    if session.mcp is not None:  # `"type": "sdk"` servers are reached through the channel
        session.mcp.manager.sdk_channel = channel.request
    if permission_prompt:
        session.dispatcher.interactive = True  # a question goes to can_use_tool instead of being refused
        session.bus.subscribe(PermissionBridge(session, channel), name="sdk-permissions",
                              skip=(BlockDelta, BlockStarted, BlockFinished, ToolOutput, McpMessage))
    return requests
