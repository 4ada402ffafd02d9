"""Editing keys that act in the order they were typed, in the prompt and in every text field.

Textual matches a focused widget's own (non-priority) bindings only once the key has bubbled up to
the app, one message queue per ancestor, while the letters typed after it go straight into the
widget. In a burst (a fast typist over ssh, a keyboard macro, tmux send-keys) Ctrl+A Ctrl+K "text"
therefore typed the text before Ctrl+K ran, and deleted it. Running the widget's own binding when
the key reaches the widget keeps the order.

Not in the dialogs that answer permission questions (VettedScreen): there every key must reach
the screen, which times it to tell a key pressed from a burst (answer_guard.py).
"""

from __future__ import annotations

from textual import events
from textual.widget import Widget
from textual.widgets import Input


async def run_own_binding(widget: Widget, event: events.Key) -> bool:
    """Run `widget`'s own binding for the key now; True (and the event stopped) if one ran."""
    bindings = widget._bindings
    if widget.app._keymap:  # a copy only when a keymap rebinds keys: this runs for every key typed
        bindings = bindings.copy()
        bindings.apply_keymap(widget.app._keymap)
    for binding in bindings.key_to_bindings.get(event.key, ()):
        if not binding.priority and await widget.app.run_action(binding.action, widget):
            event.stop()
            event.prevent_default()
            return True
    return False


class OrderedInput(Input):
    """An `Input` whose editing keys act in the order typed."""

    async def _on_key(self, event: events.Key) -> None:
        await run_own_binding(self, event)
