"""The chips above the prompt: each image the next prompt will send, removable until it is sent.

`[image 1: shot.png 1280×720 ✕]`: a click removes a chip; Backspace at the very start of the
prompt removes the last one (bindings.py, `remove_attachment`). The bar is hidden while empty.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import events
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Static

from tui.text.sanitize import one_line


def chip_label(number: int, name: str, width: int, height: int) -> str:
    """`image 1: shot.png 1280×720`, the chip's words (also the conversation's caption)."""
    size = f" {width}×{height}" if width and height else ""
    return f"image {number}: {one_line(name)}{size}"


class AttachmentChip(Static):
    """One attached image; a click asks the bar to remove it."""

    def __init__(self, number: int, label: str) -> None:
        super().__init__(Text(f"[{label} ✕]"), classes="attachment-chip")
        self.number = number
        self.tooltip = "Click to remove (or Backspace at the start of the prompt)"

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.post_message(AttachmentBar.RemoveRequested(self.number))


class AttachmentBar(Horizontal):
    """The images attached to the prompt (tui.tools.attachments.Attachment, kind `image`), as chips."""

    class RemoveRequested(Message):
        """A chip was clicked: remove image `number` (1-based)."""

        def __init__(self, number: int) -> None:
            super().__init__()
            self.number = number

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.attachments: list[Any] = []
        self.display = False

    def add(self, attachment: Any) -> None:
        """Attach one more image (its chip goes last)."""
        self.attachments.append(attachment)
        self._redraw()

    def discard(self, number: int) -> Any | None:
        """Take image `number` (1-based; 0 or less: the last) off the prompt; the attachment, or None."""
        if not self.attachments:
            return None
        index = number - 1 if number > 0 else len(self.attachments) - 1
        if not 0 <= index < len(self.attachments):
            return None
        removed = self.attachments.pop(index)
        self._redraw()
        return removed

    def take(self) -> list[Any]:
        """Every attachment, leaving the bar empty (the prompt is being sent)."""
        taken, self.attachments = self.attachments, []
        self._redraw()
        return taken

    @property
    def labels(self) -> list[str]:
        """The chips' words, in order."""
        return [chip_label(i, a.name, a.width, a.height) for i, a in enumerate(self.attachments, 1)]

    def _redraw(self) -> None:
        """Make the chips match the attachments: existing chips relabelled, extra ones removed, missing ones added."""
        labels = self.labels
        chips = list(self.query_children(AttachmentChip))
        for number, (chip, label) in enumerate(zip(chips, labels), 1):
            chip.number = number
            chip.update(Text(f"[{label} ✕]"))
        for chip in chips[len(labels) :]:
            chip.remove()
        if len(labels) > len(chips):
            self.mount_all(AttachmentChip(i, label) for i, label in enumerate(labels, 1) if i > len(chips))
        self.display = bool(self.attachments)

    def on_attachment_bar_remove_requested(self, message: RemoveRequested) -> None:
        message.stop()
        self.discard(message.number)
