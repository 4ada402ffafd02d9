"""The permission questions still waiting, and the question an `@` attachment asks (the answer to a question,
PermissionReply, is in tui.agent.events)."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from concurrent.futures import CancelledError, Future, TimeoutError
from typing import Any

# the reply a front end gives (and a rule as Claude Code writes it) live beside the event they answer
from tui.agent.events.permission import PermissionReply


class PendingAsks:
    """The permission questions waiting for an answer, so a rule one answer adds settles the others at once.

    "Allow for this session", "always allow" and "every tool of this server" add a rule; each question
    still queued that the rule now allows is withdrawn (its future cancelled) and its call runs, as if
    a rule had allowed it before it was asked.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        #: key -> (the reply future, the call's verdict now, what to do when it is settled by a rule)
        self._waiting: dict[str, tuple[Future[Any], Callable[[], Any], Callable[[Any], None]]] = {}
        #: keys settled by a rule, with the verdict that allowed them
        self.settled: dict[str, Any] = {}

    def add(self, key: str, future: Future[Any], verdict: Callable[[], Any], allowed: Callable[[Any], None]) -> None:
        with self._lock:
            self._waiting[key] = (future, verdict, allowed)

    def remove(self, key: str) -> Any:
        """Forget `key`; the verdict that settled it, if a rule did."""
        with self._lock:
            self._waiting.pop(key, None)
            return self.settled.pop(key, None)

    def settle(self, exclude: str | None = None) -> None:
        """Look at every waiting question again: those the rules now allow are withdrawn and allowed."""
        with self._lock:
            waiting = [(k, entry) for k, entry in self._waiting.items() if k != exclude and k not in self.settled]
        for key, (future, verdict_now, allowed) in waiting:
            verdict = verdict_now()
            if verdict.decision != "allow":
                continue
            with self._lock:  # two threads may settle at once; cancel() of a cancelled future is True again
                if key in self.settled or key not in self._waiting or future.done():  # settled, gone or answered
                    continue
                self.settled[key] = verdict  # before cancel() wakes the waiter, which reads it in remove()
                if not future.cancel():  # answered meanwhile
                    del self.settled[key]
                    continue
            allowed(verdict)  # its dialog closes


_attach_ids = itertools.count(1)


def _what(attachment: Any) -> str:
    from tui.tools.pasted_paths import IMAGE_SUFFIXES

    return "image" if attachment.real.suffix.lower() in IMAGE_SUFFIXES else "text"


def ask_to_attach(session: Any, attachment: Any, cancel: threading.Event) -> bool:
    """Ask in the permission dialog whether an `@` mention that needs a yes may be read and attached.

    The question is a Read of the file, so "allow for this session" and "always allow" remember a Read rule.
    """
    from tui.agent.events import PermissionRequested, PermissionResolved

    tool_use_id = f"attach_{next(_attach_ids)}"
    rule = attachment.suggested_rule or "Read"
    reply_future: Future[PermissionReply] = Future()
    session.publish(
        PermissionRequested(
            tool_use_id=tool_use_id,
            tool_name="Read",
            input={"file_path": str(attachment.path)},
            label=f"Attach @{attachment.shown}",
            suggested_rule=rule,
            reason=attachment.reason,
            reply=reply_future,
            preview={
                "kind": "text",
                "text": f"Attach {attachment.real} to your prompt: its {_what(attachment)} is sent to the model.",
            },
        )
    )
    reply = PermissionReply(False)
    while not cancel.is_set():
        try:
            reply = reply_future.result(timeout=0.05)
            break
        except TimeoutError:
            continue
        except CancelledError:
            break
    else:
        reply_future.cancel()
    chosen = reply.rule or rule
    if reply.allowed and reply.scope == "session":
        session.policy.add_session_rule(chosen)
    elif reply.allowed and reply.scope == "always":
        session.policy.save_rule(chosen, reply.destination)
    session.publish(
        PermissionResolved(
            tool_use_id=tool_use_id,
            tool_name="Read",
            allowed=reply.allowed,
            scope="interrupted" if cancel.is_set() else reply.scope,
            reason=reply.reason,
            rule=chosen if reply.scope != "once" else None,
        )
    )
    return reply.allowed and not cancel.is_set()
