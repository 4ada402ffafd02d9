"""Images for the next prompt: a pasted or dropped image path, Ctrl+V's clipboard image, the chips that show them.

Every path goes through `tui.tools.attachments` (the Read tool's rules: a file outside the project
is asked about in the permission dialog), and a clipboard picture through the same image checks;
the work runs on a thread worker, and what comes back becomes a chip or one sentence. The chips'
images leave with the next prompt that starts a turn (`take`).
"""

from __future__ import annotations

import threading
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .threads import call_soon_from_thread
from .widgets.attachment_bar import AttachmentBar

if TYPE_CHECKING:
    from .app import AgentApp

TITLE = "Images"


class PromptImages:
    """The prompt's attachments: adds them off the UI thread, removes them, hands them to the turn."""

    def __init__(self, app: AgentApp, bar: AttachmentBar) -> None:
        self.app = app
        self.bar = bar
        #: set when the prompt goes away: a question still open about a pasted path is withdrawn
        self.closed = threading.Event()

    @property
    def count(self) -> int:
        return len(self.bar.attachments)

    def paste(self, text: str) -> bool:
        """Attach the image files a paste names (a dropped file); False when the paste is text to insert."""
        from tui.tools.pasted_paths import pasted_image_paths

        paths = pasted_image_paths(text, Path(self.app.options.project_dir))
        if not paths:
            return False
        self.app.run_worker(partial(self._attach_paths, paths), thread=True, group="attach", exit_on_error=False)
        return True

    def paste_clipboard(self) -> None:
        """Ctrl+V: read the clipboard's image with the platform's tool, on a thread."""
        self.app.run_worker(self._attach_clipboard, thread=True, group="attach", exit_on_error=False)

    def remove_last(self) -> bool:
        """Backspace at the prompt's start: take the last chip off; False when there is none."""
        return self.bar.discard(0) is not None

    def take(self) -> tuple[dict[str, Any], ...]:
        """The images as the turn carries them (Attachment.image_entry), the chips cleared."""
        return tuple(attachment.image_entry() for attachment in self.bar.take())

    def close(self) -> None:
        self.closed.set()

    # --- on the worker thread -------------------------------------------------------------

    def _attach_paths(self, paths: list[str]) -> None:
        from tui.tools.attachments import attach_one

        session = self.app.session
        rules = session.attachment_rules(True)
        for raw in paths:
            attached = attach_one(raw, rules, ask=partial(session.ask_to_attach, cancel=self.closed))
            if attached is None:
                self._said(f"{raw} is gone: nothing was attached.")
            else:
                self._landed(attached)
        call_soon_from_thread(self.app, self._idle_again)

    def _attach_clipboard(self) -> None:
        from tui.tools.attachments import image_from_bytes
        from tui.tools.image_scale import MAX_EDGE

        from .clipboard_image import NO_IMAGE, read_clipboard_image

        found = read_clipboard_image()
        if found.problem == NO_IMAGE and self.app.clipboard:  # text copied in the app: Ctrl+V pastes it as before
            call_soon_from_thread(self.app, self.app.prompt_area.action_paste)
            return
        if found.problem:
            self._said(found.problem)
            return
        max_edge = getattr(self.app.session.options, "image_max_edge", MAX_EDGE)
        self._landed(image_from_bytes(found.data, "clipboard", max_edge))

    def _landed(self, attached: Any) -> None:
        if attached.kind == "image":
            call_soon_from_thread(self.app, self._add, attached)
        else:
            self._said(f"{attached.shown} was not attached: {attached.reason or 'it is not an image.'}")

    def _said(self, sentence: str) -> None:
        call_soon_from_thread(self.app, self.app.notify, sentence, title=TITLE, severity="warning", timeout=10)

    def _add(self, attached: Any) -> None:
        if not self.closed.is_set():
            self.bar.add(attached)

    def _idle_again(self) -> None:
        """A question asked about a pasted path left the status line waiting: idle again unless a turn runs."""
        if not self.closed.is_set() and not self.app.controller.busy:
            self.app.status.set_state("idle")


def install(app: AgentApp) -> PromptImages:
    """Mount the (hidden) chip bar above the prompt and give the prompt its images helper."""
    bar = AttachmentBar(id="attachments")
    app.query_one("#main").mount(bar, before=app.query_one("#prompt-row"))
    images = PromptImages(app, bar)
    app.prompt_area.images = images
    return images
