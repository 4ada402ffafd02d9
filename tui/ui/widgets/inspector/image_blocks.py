"""Image blocks in the inspector: what the picture is and what was sent, its base64 cut to a few characters.

A request holding a screenshot carries a megabyte of base64; shown whole, a label or the detail
pane would be that megabyte of noise. The size is read from the picture's header (no decoding).
"""

from __future__ import annotations

import base64
import binascii
from typing import Any, TypeGuard

#: base64 characters decoded to find a picture's size (a JPEG's EXIF may come first)
HEAD_CHARS = 96_000
#: base64 characters shown of the data
SHOWN_CHARS = 24


def is_image_source(value: Any) -> TypeGuard[dict[str, Any]]:
    """True for an image block's `source` that carries base64 data."""
    return (
        isinstance(value, dict)
        and value.get("type") == "base64"
        and isinstance(value.get("data"), str)
        and str(value.get("media_type", "")).startswith("image/")
    )


def sent_bytes(data: str) -> int:
    """The bytes a base64 string stands for."""
    return len(data) * 3 // 4 - data[-2:].count("=")


def _size(data: str) -> tuple[int, int] | None:
    from tui.tools.image_scale import header_size

    head = data[: HEAD_CHARS - HEAD_CHARS % 4]
    try:
        return header_size(base64.b64decode(head))
    except (binascii.Error, ValueError):
        return None


def image_hint(block: dict[str, Any]) -> str | None:
    """`image/jpeg · 1568×1176 · 668 KB sent` for an image block; None for any other value."""
    source = block.get("source")
    if block.get("type") != "image" or not is_image_source(source):
        return None
    size = _size(source["data"])
    sent = f"{sent_bytes(source['data']) / 1000:,.0f} KB sent"
    parts = [str(source["media_type"]), f"{size[0]}×{size[1]}" if size else "", sent]
    return " · ".join(p for p in parts if p)


def data_text(source: dict[str, Any]) -> str:
    """The data shortened: `"/9j/4AAQSkZJRgABAQAA…" (base64 of 668,023 bytes)`."""
    data = source["data"]
    return f'"{data[:SHOWN_CHARS]}…" (base64 of {sent_bytes(data):,} bytes)'


def abbreviated(value: Any) -> Any:
    """`value` with each image's base64 replaced by `data_text` (for showing a block or message whole)."""
    if isinstance(value, list):
        return [abbreviated(item) for item in value]
    if not isinstance(value, dict):
        return value
    if is_image_source(value):
        return {**value, "data": data_text(value)}
    return {key: abbreviated(item) for key, item in value.items()}
