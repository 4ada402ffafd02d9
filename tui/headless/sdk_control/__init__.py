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

import os
import select
import stat
import threading
from typing import TYPE_CHECKING, TextIO

from tui.agent.events import BlockDelta, BlockFinished, BlockStarted, McpMessage, ToolOutput
from tui.headless.stream_input import StreamJsonInput
from tui.text.sanitize import visible

from .channel import ControlChannel
from .permissions import PermissionBridge
from .requests import SdkRequests

if TYPE_CHECKING:
    from tui.agent.door import Session

#: the sentence a request still waiting gets when stdin ends
INPUT_CLOSED = "the Agent SDK program closed agent-tui's input (stdin) before answering"
#: how often, once stdin has ended, agent-tui looks whether anyone still reads its stdout
WATCH_S = 0.25


def attach(
    session: Session, reader: StreamJsonInput, out: TextIO, err: TextIO, *, permission_prompt: bool
) -> SdkRequests:
    """Plug the control protocol into `reader` for `session`; `permission_prompt`: can_use_tool answers questions.

    The caller sets `finished` on the returned handlers once the run is over.
    """
    channel = ControlChannel(reader.emit)
    requests = SdkRequests(session, channel)
    reader.controls.update(requests.handlers())
    reader.handlers["control_response"] = channel.on_response
    reader.on_end.append(lambda: channel.close(INPUT_CLOSED))
    reader.on_end.append(lambda: watch_reader(out, session, err, requests.finished))

    def refused(sentence: str) -> None:
        """A prompt that cannot be sent while no turn runs: its own error result, so no client waits for one."""
        requests.refused_prompts += 1
        if not requests.turn_running():
            said = f"The message was not sent: {sentence}."
            reader.report(
                {
                    "type": "result",
                    "subtype": "error_during_execution",
                    "is_error": True,
                    "duration_ms": 0,
                    "duration_api_ms": 0,
                    "num_turns": 0,
                    "session_id": session.session_id,
                    "stop_reason": "input_error",
                    "result": said,
                    "errors": [said],
                }
            )

    reader.on_refused_prompt = refused

    def lost(subtypes: list[str]) -> None:
        """stdin ended while agent-tui waited on the SDK: the program is gone, so the turn stops here."""
        err.write(
            visible(f"agent-tui: {INPUT_CLOSED} ({', '.join(sorted(set(subtypes)))}); the turn is interrupted.") + "\n"
        )
        err.flush()
        session.cancel()

    channel.on_lost = lost
    session.reach_sdk_servers(channel.request)  # `"type": "sdk"` servers are reached through the channel
    if permission_prompt:
        session.answer_through_front_end()  # a question goes to can_use_tool instead of being refused
        session.bus.subscribe(
            PermissionBridge(session, channel),
            name="sdk-permissions",
            skip=(BlockDelta, BlockStarted, BlockFinished, ToolOutput, McpMessage),
        )
    return requests


def watch_reader(out: TextIO, session: Session, err: TextIO, finished: threading.Event) -> None:
    """Once stdin has ended: if stdout's reader goes away too, the program is gone, so the turn stops now.

    A query() closes stdin after its prompt and still reads the answer, so the end of stdin alone ends
    nothing; a program that died (or dropped both pipes) leaves no reader, which the pipe reports as an
    error condition. Then the running turn is interrupted (a Bash command with it) instead of running on
    for no one; its result line meets the closed pipe and agent-tui exits as for `| head -1`.
    """
    try:
        fd = out.fileno()
        if not stat.S_ISFIFO(os.fstat(fd).st_mode) and not stat.S_ISSOCK(os.fstat(fd).st_mode):
            return
    except (OSError, ValueError, AttributeError):
        return

    def watch() -> None:
        poll = select.poll()
        poll.register(fd, 0)  # only the error and hang-up conditions, which poll always reports
        while not finished.wait(WATCH_S):
            if poll.poll(0):
                err.write(
                    "agent-tui: the Agent SDK program went away (stdin ended and no one reads stdout); "
                    "the turn is interrupted.\n"
                )
                err.flush()
                session.cancel()
                return

    threading.Thread(target=watch, name="sdk-reader-watch", daemon=True).start()
