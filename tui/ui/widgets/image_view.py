"""An image sent with a prompt, in the conversation: drawn where the terminal can, its chip everywhere.

Kitty's graphics protocol (kitty, Ghostty) or Sixel (WezTerm, iTerm2, foot, Konsole, Windows
Terminal) draw the picture itself through `textual-image`; any other colour terminal gets
half-block cells (two pixels a cell); a terminal without colour gets the chip alone. The
terminal is known by its environment, never asked: an answer to a query would reach Textual's
input thread as keys. `AGENT_TUI_IMAGES=kitty|sixel|halfblock|off` overrides the guess.
Pillow and textual-image are imported here, when the first image is shown.
"""

from __future__ import annotations

import base64
import io
import os
import sys
import threading
import warnings
from collections.abc import Mapping
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Static

from .attachment_bar import chip_label
from .conversation_model import BlockRecord

#: the picture's rows in the conversation (its width follows from the aspect ratio)
IMAGE_ROWS = 10
#: pixels kept for drawing: enough for IMAGE_ROWS rows of 20 px cells, a fraction of what was sent
DRAW_PIXELS = (1024, 512)
_PROTOCOLS = {"kitty": "tgp", "sixel": "sixel", "halfblock": "halfcell", "off": None}
_import_lock = threading.Lock()
# textual-image 0.12 reads pixels with Image.getdata, deprecated in Pillow 13 (pyproject pins Pillow below 14)
warnings.filterwarnings("ignore", message=r"Image\.Image\.getdata is deprecated", category=DeprecationWarning)


def image_protocol(env: Mapping[str, str], colour: bool = True, headless: bool = False) -> str | None:
    """How this terminal draws a picture: "tgp" (Kitty), "sixel", "halfcell", or None (the chip alone)."""
    chosen = env.get("AGENT_TUI_IMAGES", "").strip().lower()
    if chosen in _PROTOCOLS:
        return _PROTOCOLS[chosen]
    if headless:
        return "halfcell"  # tests and screenshots: cells an SVG can show
    if not colour or env.get("TERM") == "dumb":
        return None
    if env.get("TMUX"):
        return "halfcell"  # tmux passes neither protocol on reliably
    term, program = env.get("TERM", ""), env.get("TERM_PROGRAM", "")
    if env.get("KITTY_WINDOW_ID") or term == "xterm-kitty" or program.lower() == "ghostty":
        return "tgp"
    if (
        program in ("WezTerm", "iTerm.app")
        or term.startswith(("foot", "mlterm"))
        or env.get("WT_SESSION")
        or env.get("KONSOLE_VERSION")
    ):
        return "sixel"
    return "halfcell"


class _NotATerminal:
    """sys.__stdout__ while textual-image is imported: it then asks the terminal nothing."""

    def __init__(self, real: Any) -> None:
        self._real = real

    def isatty(self) -> bool:
        return False

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


def _widget_classes() -> dict[str, type[Widget]]:
    """textual-image's widgets by protocol, imported without its terminal queries (which would read stdin)."""
    with _import_lock:
        from textual_image import _terminal

        if not hasattr(_terminal.get_cell_size, "_result"):
            try:
                rows, columns, width, height = _terminal.get_tiocgwinsz()  # an ioctl: nothing is read
                cell = _terminal.CellSize(width // columns, height // rows) if width and height else None
            except Exception:
                cell = None
            _terminal.get_cell_size._result = cell or _terminal.CellSize(10, 20)  # type: ignore[attr-defined]
        real = sys.__stdout__
        # typeshed declares sys.__stdout__ Final; textual-image probes the terminal through it on import
        sys.__stdout__ = _NotATerminal(real)  # type: ignore[assignment,misc]
        try:
            from textual_image.widget import HalfcellImage, SixelImage, TGPImage
        finally:
            sys.__stdout__ = real  # type: ignore[misc]
    return {"tgp": TGPImage, "sixel": SixelImage, "halfcell": HalfcellImage}


def decoded(block: dict[str, Any]) -> Any:
    """The block's picture as a Pillow image, shrunk for drawing; None when it cannot be decoded."""
    from PIL import Image

    source = block.get("source") or {}
    try:
        picture = Image.open(io.BytesIO(base64.b64decode(str(source.get("data", "")))))
        picture.draft("RGB", DRAW_PIXELS)
        picture.thumbnail(DRAW_PIXELS)
        return picture.convert("RGB")
    except Exception:  # a damaged block is shown as its chip
        return None


def caption(number: int, entry: dict[str, Any], size: tuple[int, int] | None = None) -> str:
    """`image 1: shot.png 1568×1176 · 668 KB sent (from 4000×3000)`."""
    width, height = entry.get("width") or 0, entry.get("height") or 0
    if not width and size is not None:
        width, height = size
    text = chip_label(number, str(entry.get("name") or "image"), width, height)
    if entry.get("bytes"):
        text += f" · {entry['bytes'] / 1000:,.0f} KB sent"
    original = (entry.get("original_width"), entry.get("original_height"))
    if all(original) and original != (width, height):
        text += f" (from {original[0]}×{original[1]})"
    return text


class PromptImage(Vertical):
    """One image of a prompt: its chip, and the picture itself where the terminal can draw it."""

    def __init__(self, record: BlockRecord) -> None:
        super().__init__(classes="prompt-image")
        self.record = record
        self.entry: dict[str, Any] = record.image or {}
        self.drawn: Widget | None = None

    def compose(self) -> ComposeResult:
        number = int(self.entry.get("number") or 1)
        protocol = image_protocol(os.environ, colour=_colour(self.app), headless=self.app.is_headless)
        picture = decoded(self.entry.get("block") or {}) if protocol else None
        size = (
            None
            if picture is None
            else (self.entry.get("width") or picture.width, self.entry.get("height") or picture.height)
        )
        yield Static(Text(f"[{caption(number, self.entry, size)}]"), classes="image-caption")
        if picture is not None and protocol is not None:
            self.drawn = _widget_classes()[protocol](picture, classes="image-picture")
            yield self.drawn


def _colour(app: Any) -> bool:
    """True unless the terminal shows no colour (NO_COLOR, a monochrome console)."""
    return not os.environ.get("NO_COLOR") and getattr(app.console, "color_system", "truecolor") is not None
