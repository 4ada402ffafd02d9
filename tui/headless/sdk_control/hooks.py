"""Hooks written as Python functions in the Agent SDK program, run through the hooks module.

The SDK's `initialize` request lists, per event, matchers with callback ids
(`{"PreToolUse": [{"matcher": "Bash", "hookCallbackIds": ["hook_0"], "timeout": 30}]}`). Each id
becomes a HookSpec like a settings file's command, so the same events fire it with the same input,
the same HookStarted/HookFinished events show it, and its answer is read as a command hook's JSON
output (`decision`, `permissionDecision`, `updatedInput`, `additionalContext`, `continue`...). Running
one is a `hook_callback` control request instead of a process.
"""

from __future__ import annotations

import json
import threading
import time
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui.config.hooks_config import EVENTS
from tui.headless.stream_input import ControlRefused
from tui.hooks.config import DEFAULT_TIMEOUT_S, HookSpec
from tui.hooks.runner import HookRun

from .channel import ChannelClosed, ControlChannel

if TYPE_CHECKING:
    from tui.agent.door import Session

#: where an SDK callback hook comes from, as the inspector and `/hooks` name it
SOURCE = Path("Agent SDK")
#: how often a waiting callback looks at the turn's cancel event
POLL_S = 0.05


def hook_specs(config: Any) -> list[HookSpec]:
    """The callback hooks of an `initialize` request's `hooks`; ControlRefused names the first that cannot be used."""
    if config is None:
        return []
    if not isinstance(config, dict):
        raise ControlRefused('initialize: "hooks" must be an object of events')
    specs: list[HookSpec] = []
    for event, matchers in config.items():
        if event not in EVENTS:
            raise ControlRefused(
                f"initialize: agent-tui does not fire {event} hooks (it fires "
                f"{', '.join(e for e in EVENTS if e != 'SessionEnd')}); leave that event out of "
                "the hooks option"
            )
        if event == "SessionEnd":
            raise ControlRefused(
                "initialize: a SessionEnd hook cannot be a Python callback here: agent-tui's session "
                "ends when the SDK has closed its input, so the callback could never be asked"
            )
        for group in matchers if isinstance(matchers, list) else [None]:
            ids = group.get("hookCallbackIds") if isinstance(group, dict) else None
            if not isinstance(group, dict) or not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
                raise ControlRefused(f'initialize: hooks.{event} needs matchers with "hookCallbackIds", a list of ids')
            matcher = group.get("matcher")
            timeout = group.get("timeout")
            seconds = (
                float(timeout)
                if isinstance(timeout, (int, float)) and not isinstance(timeout, bool) and timeout > 0
                else DEFAULT_TIMEOUT_S
            )
            specs += [
                HookSpec(
                    event,
                    matcher if isinstance(matcher, str) and matcher else None,
                    f"Agent SDK callback {cid}",
                    seconds,
                    SOURCE,
                    False,
                    callback=cid,
                )
                for cid in ids
            ]
    return specs


def register(session: Session, specs: list[HookSpec], channel: ControlChannel) -> None:
    """Put the callback hooks in force for the rest of the run, beside the settings files' hooks."""
    if not specs:
        return
    session.add_hooks(specs, lambda run, cancel: invoke(channel, run, cancel))


def invoke(channel: ControlChannel, run: HookRun, cancel: threading.Event | None) -> None:
    """Ask the SDK to run the callback of `run`; its answer becomes the run's stdout, as a command's JSON."""
    asked = channel.request(
        {
            "subtype": "hook_callback",
            "callback_id": run.spec.callback,
            "input": json.loads(run.stdin),
            "tool_use_id": run.tool_use_id,
        }
    )
    deadline = time.monotonic() + run.spec.timeout
    while True:
        if cancel is not None and cancel.is_set():
            asked.cancel()
            run.error = "interrupted before the Agent SDK answered"
            return
        left = deadline - time.monotonic()
        if left <= 0:
            asked.cancel()
            run.timed_out = True
            return
        try:
            answer = asked.result(timeout=min(POLL_S, left))
            break
        except FutureTimeout:
            continue
        except ChannelClosed as exc:
            run.error = str(exc)
            return
        except Exception as exc:  # noqa: BLE001 - the callback raised in the SDK program
            run.error = f"the Python callback raised: {exc}"
            return
    run.stdout = json.dumps(answer, ensure_ascii=False)
    run.exit_code = 0
