"""The API's checks of image blocks (as the real API checks them): a media type it takes, valid base64 of at most 5 MB,
no empty text block beside them."""

from __future__ import annotations

import base64
import binascii
from typing import Any

MEDIA_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")
MAX_BASE64 = 5 * 1024 * 1024


def _blocks(content: Any) -> list[tuple[str, dict[str, Any]]]:
    """(path, block) of every content block, tool_result content included."""
    out = []
    for bi, block in enumerate(content if isinstance(content, list) else []):
        if isinstance(block, dict):
            out.append((f"content.{bi}", block))
            if block.get("type") == "tool_result":
                out += [(f"content.{bi}.{p}", b) for p, b in _blocks(block.get("content"))]
    return out


def check_images(messages: list[Any]) -> str | None:
    """The 400 message the API gives a bad image block or an empty text block, or None."""
    for mi, message in enumerate(messages):
        for path, block in _blocks(message.get("content") if isinstance(message, dict) else None):
            where = f"messages.{mi}.{path}"
            if block.get("type") == "text" and block.get("text") == "":
                return f"{where}: text content blocks must be non-empty"
            if block.get("type") != "image":
                continue
            source = block.get("source") or {}
            if source.get("type") != "base64":
                continue
            if source.get("media_type") not in MEDIA_TYPES:
                return (
                    f"{where}.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' "
                    "or 'image/webp'"
                )
            data = source.get("data")
            try:
                base64.b64decode(str(data), validate=True)
            except (binascii.Error, ValueError):
                return f"{where}.source.base64.data: The image data is not valid base64."
            if len(str(data)) > MAX_BASE64:
                return f"{where}.source.base64: image exceeds 5 MB maximum: {len(str(data))} bytes > {MAX_BASE64} bytes"
    return None
