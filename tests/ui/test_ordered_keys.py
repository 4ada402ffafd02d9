"""Editing keys in a burst act in the order typed, in the text fields of the app's screens (ordered_keys.py)."""

from __future__ import annotations

import pytest
from textual import events
from textual.app import App, ComposeResult
from textual.containers import Vertical
from textual.widgets import Input

from tui.ui.widgets.ordered_keys import OrderedInput

from .conftest import wait_until


class FieldApp(App[None]):
    def __init__(self, field: type[Input]) -> None:
        super().__init__()
        self.field = field

    def compose(self) -> ComposeResult:
        with Vertical(), Vertical():  # a few ancestors for the key to bubble through, as on a real screen
            yield self.field("first try", id="field")


def burst(app: App[None], keys: str, *specials: tuple[str, str]) -> None:
    """Post `specials` then `keys` to the app at once, as one read of the terminal delivers them."""
    for key, char in specials:
        app.post_message(events.Key(key, char))
    for char in keys:
        app.post_message(events.Key(char, char))


@pytest.mark.parametrize("field, kept", [(OrderedInput, True), (Input, False)], ids=["ordered", "textual-input"])
async def test_ctrl_a_ctrl_k_then_text_in_one_burst(field: type[Input], kept: bool) -> None:
    app = FieldApp(field)
    async with app.run_test() as pilot:
        box = app.query_one("#field", Input)
        box.focus()
        box.cursor_position = len(box.value)
        await pilot.pause()
        burst(app, "second", ("ctrl+a", "\x01"), ("ctrl+k", "\x0b"))
        await wait_until(pilot, lambda: box.value != "first try", timeout=5)
        await pilot.pause(0.2)
        if not kept and box.value == "second":
            pytest.skip("Textual's own Input now keeps the order: ordered_keys.py is no longer needed")
        # Textual's own Input (the control) shows the race this fixes: ^K runs after "second" is typed
        assert (box.value == "second") is kept, box.value
