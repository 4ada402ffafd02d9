"""MCP results as tool_result content: text, images, resources, structured content, the size cap.

Works on wire-format dicts (`content`, `structuredContent`, `isError`). Output above the
cap (`mcp.max_output_tokens`, default 25 000 tokens, ~4 characters each) is cut with a
note that says so, as Claude Code does.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from tui.text.wording import plural

#: image types the Messages API takes in an image block
IMAGE_TYPES = {"image/png", "image/jpeg", "image/gif", "image/webp"}
CHARS_PER_TOKEN = 4
#: what one image block counts against the cap (the API's cost of a mid-sized image)
IMAGE_TOKENS = 1600


def _image(data: str, mime: str) -> dict[str, Any]:
    return {"type": "image", "source": {"type": "base64", "media_type": mime, "data": data}}


def _resource_block(resource: dict[str, Any]) -> dict[str, Any]:
    uri = resource.get("uri", "")
    mime = resource.get("mimeType", "")
    if "text" in resource:
        return {"type": "text", "text": f"[Resource {uri}]\n{resource['text']}"}
    blob = resource.get("blob", "")
    if mime in IMAGE_TYPES and blob:
        return _image(blob, mime)
    try:
        size = len(base64.b64decode(blob, validate=False))
    except (ValueError, TypeError):
        size = len(blob)
    return {
        "type": "text",
        "text": f"[Binary resource {uri} ({mime or 'unknown type'}, {plural(size, 'byte')}) not shown]",
    }


def content_blocks(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """MCP content blocks as Messages API blocks (text and image)."""
    blocks: list[dict[str, Any]] = []
    for item in items:
        kind = item.get("type")
        if kind == "text":
            blocks.append({"type": "text", "text": str(item.get("text", ""))})
        elif kind == "image" and item.get("mimeType") in IMAGE_TYPES:
            blocks.append(_image(item.get("data", ""), item["mimeType"]))
        elif kind == "image":
            blocks.append({"type": "text", "text": f"[Image of type {item.get('mimeType')} not supported by the API]"})
        elif kind == "audio":
            blocks.append({"type": "text", "text": f"[Audio ({item.get('mimeType', 'unknown type')}) not supported]"})
        elif kind == "resource_link":
            parts = [f"[Resource link: {item.get('name', '')} {item.get('uri', '')}".rstrip()]
            if item.get("mimeType"):
                parts.append(f"({item['mimeType']})")
            text = " ".join(parts) + "]"
            if item.get("description"):
                text += f" {item['description']}"
            blocks.append({"type": "text", "text": text})
        elif kind == "resource" and isinstance(item.get("resource"), dict):
            blocks.append(_resource_block(item["resource"]))
        else:
            blocks.append({"type": "text", "text": json.dumps(item, ensure_ascii=False)})
    return blocks


def cap_blocks(blocks: list[dict[str, Any]], max_tokens: int, tool: str) -> list[dict[str, Any]]:
    """`blocks` cut to about `max_tokens`, with a note naming the size and the setting when anything was cut."""
    budget = max_tokens * CHARS_PER_TOKEN
    total = sum(len(b.get("text", "")) if b["type"] == "text" else IMAGE_TOKENS * CHARS_PER_TOKEN for b in blocks)
    if total <= budget:
        return blocks
    kept: list[dict[str, Any]] = []
    left = budget
    for block in blocks:
        size = len(block.get("text", "")) if block["type"] == "text" else IMAGE_TOKENS * CHARS_PER_TOKEN
        if size <= left:
            kept.append(block)
            left -= size
        elif block["type"] == "text" and left > 0:
            kept.append({"type": "text", "text": block["text"][:left]})
            left = 0
    kept.append(
        {
            "type": "text",
            "text": (
                f"[Output truncated: {tool} returned about {plural(total // CHARS_PER_TOKEN, 'token')}, more than the limit of "
                f"{max_tokens:,} (setting mcp.max_output_tokens or MAX_MCP_OUTPUT_TOKENS). Ask for less, for example "
                "with a filter or a page, if more is needed.]"
            ),
        }
    )
    return kept


def tool_result(result: dict[str, Any], max_tokens: int, tool: str) -> tuple[str | list[dict[str, Any]], bool]:
    """(tool_result content, is_error) for a `tools/call` result."""
    blocks = content_blocks(result.get("content") or [])
    structured = result.get("structuredContent")
    if structured is not None and not blocks:  # servers should mirror it as text; when one does not, send the JSON
        blocks = [{"type": "text", "text": json.dumps(structured, ensure_ascii=False)}]
    if not blocks:
        blocks = [{"type": "text", "text": "(the tool returned no content)"}]
    blocks = cap_blocks(blocks, max_tokens, tool)
    is_error = bool(result.get("isError"))
    if all(b["type"] == "text" for b in blocks):
        return "\n".join(b["text"] for b in blocks), is_error
    return blocks, is_error


def resource_text(uri: str, result: dict[str, Any], max_tokens: int) -> str | list[dict[str, Any]]:
    """A `resources/read` result as tool_result content."""
    blocks = [_resource_block({"uri": uri, **c}) for c in result.get("contents") or []]
    blocks = cap_blocks(blocks or [{"type": "text", "text": f"[Resource {uri} is empty]"}], max_tokens, uri)
    if all(b["type"] == "text" for b in blocks):
        return "\n".join(b["text"] for b in blocks)
    return blocks
