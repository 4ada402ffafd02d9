"""The prompt while a turn runs: Enter queues, Up edits the newest queued message, Esc takes them back.

The queue itself is the session's inbox (tui/agent/inbox.py): the loop steers it into the turn
or starts the next turn with it. This module only puts messages in, takes them back on request,
keeps the list under the prompt in step, and shows a steer in the conversation.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from tui.agent import events as ev
from tui.text.wording import plural

from .widgets.blocks import UserPrompt
from .widgets.conversation_model import BlockRecord
from .widgets.queued_messages import QueuedMessages

if TYPE_CHECKING:
    from .app import AgentApp
    from .events import EventController
    from .widgets.prompt import PromptArea

#: typed while a turn runs, these are not messages for the model: they keep today's refusal
NOT_QUEUED = ("/", "!", "#")


def inbox(app: AgentApp) -> Any:
    """The session's inbox, or None (a session built before the app asked for one, a stand-in engine)."""
    return getattr(app._session, "inbox", None)


def queue_while_busy(app: AgentApp, text: str) -> bool:
    """Queue `text` when a turn runs (or is starting); False: nothing runs, so the caller starts one."""
    box = inbox(app)
    if box is None or text.startswith(NOT_QUEUED):
        return False
    if app.controller.busy or app.compacting:
        box.put(text)  # the turn is starting (or ending): it drains the inbox before it is done; after a /compact
    elif not box.put_if_active(text):
        return False  # no turn runs: this one starts now
    refresh(app)
    return True


def refresh(app: AgentApp) -> None:
    """Show the inbox under the prompt."""
    box = inbox(app)
    texts = [m.text for m in box.snapshot()] if box is not None else []
    for widget in app.query(QueuedMessages):
        widget.show(texts)


def send_stranded(app: AgentApp) -> None:
    """The app went idle with messages queued that no turn will read (typed as a turn ended, or during `!cmd`):
    they are the next prompt, sent at once."""
    box = inbox(app)
    if box is None or box.active or not len(box):
        return
    from tui.agent.inbox import joined

    text = joined(box.take_all())
    refresh(app)
    app.call_later(app.submit_prompt, text)


class QueueKeys:
    """The prompt's Up and Esc while messages are queued (set as `PromptArea.queue`)."""

    def recall(self, prompt: PromptArea) -> bool:
        """Up on an empty prompt: the newest queued message comes back into it for editing."""
        box = inbox(prompt.app)  # type: ignore[arg-type]
        if box is None or prompt.text or not len(box):
            return False
        message = box.pop_newest()
        if message is None:
            return False
        self._edit(prompt, message.text)
        return True

    def take_back(self, prompt: PromptArea) -> bool:
        """Esc on an empty prompt: every queued message comes back into it, oldest first (a second Esc interrupts)."""
        box = inbox(prompt.app)  # type: ignore[arg-type]
        if box is None or prompt.text or not len(box):
            return False
        taken = box.take_all()
        if not taken:
            return False
        self._edit(prompt, "\n".join(m.text for m in taken))
        return True

    def _edit(self, prompt: PromptArea, text: str) -> None:
        prompt.load_text(text)
        prompt.move_cursor(prompt.document.end)
        refresh(prompt.app)  # type: ignore[arg-type]


def install(app: AgentApp) -> None:
    """Give the prompt its queue keys."""
    app.prompt_area.queue = QueueKeys()


def queue_handlers(controller: EventController) -> dict[type, Callable[[Any], Awaitable[None]]]:
    """Event-controller handlers for MessageQueued and MessagesSteered."""
    app = controller.app

    async def queued(event: ev.MessageQueued) -> None:
        refresh(app)

    async def steered(event: ev.MessagesSteered) -> None:
        refresh(app)
        count = plural(len(event.texts), "message")
        await controller.add_marker(f"steer: {count} added to request #{event.iteration}", "steer")
        assert controller.turn is not None  # add_marker starts one
        for text in event.texts:
            controller.turn.add(BlockRecord("user", text, done=True))
            await controller._mount(UserPrompt(text))

    return {ev.MessageQueued: queued, ev.MessagesSteered: steered}
