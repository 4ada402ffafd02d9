"""The answer to a permission question, as the dialog (or -p) gives it, and the question an `@` attachment asks."""

from __future__ import annotations

import itertools
import threading
from concurrent.futures import CancelledError, Future, TimeoutError
from dataclasses import dataclass
from typing import Any, Literal

Scope = Literal["once", "session", "always"]


@dataclass(frozen=True)
class PermissionReply:
    """Resolves the Future in PermissionRequested.

    allowed=False with `reason` sends that reason back to the model. `rule` is the
    (possibly user-edited) rule to remember for scope "session" or "always".
    """

    allowed: bool
    scope: Scope = "once"
    rule: str | None = None
    reason: str = ""


_attach_ids = itertools.count(1)


def ask_to_attach(session: Any, attachment: Any, cancel: threading.Event) -> bool:
    """Ask in the permission dialog whether an `@` mention that needs a yes may be read and attached.

    The question is a Read of the file, so "allow for this session" and "always allow" remember a Read rule.
    """
    from .events import PermissionRequested, PermissionResolved

    tool_use_id = f"attach_{next(_attach_ids)}"
    rule = attachment.suggested_rule or "Read"
    reply_future: Future[PermissionReply] = Future()
    session.publish(PermissionRequested(
        tool_use_id=tool_use_id, tool_name="Read", input={"file_path": str(attachment.path)},
        label=f"Attach @{attachment.shown}", suggested_rule=rule, reason=attachment.reason, reply=reply_future,
        preview={"kind": "text", "text": f"Attach {attachment.real} to your prompt: its text is sent to the model."},
    ))
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
        session.policy.save_rule(chosen)
    session.publish(PermissionResolved(tool_use_id=tool_use_id, tool_name="Read", allowed=reply.allowed,
                                       scope="interrupted" if cancel.is_set() else reply.scope, reason=reply.reason,
                                       rule=chosen if reply.scope != "once" else None))
    return reply.allowed and not cancel.is_set()
