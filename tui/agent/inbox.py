"""The session's inbox: messages the user sends while a turn runs, drained by the loop at a boundary.

The app's prompt and `-p --input-format stream-json` only put messages in; the loop takes the
steerable ones just before its next request (they join the user message that holds the tool
results, after them), and whatever is still waiting when the turn ends becomes the next prompt.
Every method is safe to call from any thread.
"""

from __future__ import annotations

import dataclasses
import itertools
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from .events import Event, MessageQueued

#: queued messages that become one prompt are joined with this
JOIN = "\n\n"


@dataclass(frozen=True)
class QueuedMessage:
    """One message waiting in the inbox."""

    text: str
    #: False: never steered into a running turn, it waits for the next one (stream-json's `priority: "later"`)
    steer: bool = True
    #: who sent it: "prompt" (the app) or "stream-json" (stdin of -p)
    source: str = "prompt"
    id: int = field(default=0, compare=False)


class Inbox:
    """A thread-safe queue of user messages, and who owns the turn that will read them."""

    def __init__(self, publish: Callable[[Event], None] | None = None) -> None:
        self._publish = publish
        self._lock = threading.Condition()
        self._messages: list[QueuedMessage] = []
        self._ids = itertools.count(1)
        #: a turn (or a chain of turns) runs and will drain the inbox before it ends
        self._active = False
        self._closed = False

    # --- putting in (the app, the stream-json reader) ------------------------------------

    def put(self, text: str, *, steer: bool = True, source: str = "prompt") -> QueuedMessage:
        """Queue `text`; it goes with the running turn's next request, or starts the next turn."""
        with self._lock:
            message, count = self._append(text, steer, source)
        self._announce(message, count)
        return message

    def put_if_active(self, text: str, *, source: str = "prompt") -> bool:
        """Queue `text` only while a turn runs (checked and queued at once); False: start a turn with it."""
        with self._lock:
            if not self._active:
                return False
            message, count = self._append(text, True, source)
        self._announce(message, count)
        return True

    def _append(self, text: str, steer: bool, source: str) -> tuple[QueuedMessage, int]:
        message = QueuedMessage(text, steer, source, next(self._ids))
        self._messages.append(message)
        self._lock.notify_all()
        return message, len(self._messages)

    def _announce(self, message: QueuedMessage, count: int) -> None:
        if self._publish is not None:
            self._publish(MessageQueued(text=message.text, count=count, source=message.source))

    # --- taking back (the app's Up and Esc) ----------------------------------------------

    def pop_newest(self) -> QueuedMessage | None:
        """Take the newest message back out (the prompt edits it again); None when empty."""
        with self._lock:
            return self._messages.pop() if self._messages else None

    def take_all(self) -> list[QueuedMessage]:
        """Take every message back out, oldest first."""
        with self._lock:
            taken, self._messages = self._messages, []
            return taken

    def snapshot(self) -> list[QueuedMessage]:
        """The waiting messages, oldest first (a copy)."""
        with self._lock:
            return list(self._messages)

    def __len__(self) -> int:
        with self._lock:
            return len(self._messages)

    # --- the loop ---------------------------------------------------------------------------

    def take_steerable(self) -> list[QueuedMessage]:
        """The leading messages that may join the running turn, in order (a "later" one stops the run)."""
        with self._lock:
            count = next((i for i, m in enumerate(self._messages) if not m.steer), len(self._messages))
            taken, self._messages = self._messages[:count], self._messages[count:]
            return taken

    @property
    def active(self) -> bool:
        with self._lock:
            return self._active

    def activate(self) -> None:
        """A turn is starting: messages put from now on wait for it."""
        with self._lock:
            self._active = True

    def next_batch(self) -> list[QueuedMessage]:
        """After a turn: the next prompt's messages, or none (and then no turn owns the inbox)."""
        with self._lock:
            taken = self._take_batch()
            self._active = bool(taken)
            return taken

    def _take_batch(self) -> list[QueuedMessage]:
        """The first message and the steerable ones after it (a "later" message starts a turn of its own)."""
        end = next((i for i, m in enumerate(self._messages) if i and not m.steer), len(self._messages))
        taken, self._messages = self._messages[:end], self._messages[end:]
        return taken

    # --- a reader that feeds it until its input ends (-p --input-format stream-json) ----------

    def close(self) -> None:
        """No more messages will come: `wait_batch` returns None once the inbox is empty."""
        with self._lock:
            self._closed = True
            self._lock.notify_all()

    def wait_batch(self, timeout: float | None = None) -> list[QueuedMessage] | None:
        """Block until messages wait (take the next prompt's), or the inbox is closed and empty (None)."""
        with self._lock:
            self._lock.wait_for(lambda: self._messages or self._closed, timeout)
            if not self._messages:
                return None if self._closed else []
            return self._take_batch()

    def wait_prompt(self, timeout: float | None = None) -> list[QueuedMessage] | None:
        """Like `wait_batch`, one message at a time: those already waiting behind it get turns of their own.

        Claude Code answers each stream-json line written at once in its own turn, with its own result;
        only a line that arrives while a turn runs is steered into it.
        """
        with self._lock:
            self._lock.wait_for(lambda: self._messages or self._closed, timeout)
            if not self._messages:
                return None if self._closed else []
            first, *rest = self._messages
            self._messages = [dataclasses.replace(m, steer=False) for m in rest]
            return [first]


def joined(messages: list[QueuedMessage]) -> str:
    """The text of several queued messages as one prompt."""
    return JOIN.join(m.text for m in messages)
