"""Tool names for the API and MCP results as tool_result content."""

from __future__ import annotations

import re

from tui.mcp.names import api_name, unique_names
from tui.mcp.results import content_blocks, tool_result

API_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def test_names_are_sanitised_capped_and_unique_in_a_stable_order() -> None:
    assert api_name("git", "status") == "mcp__git__status"
    assert api_name("my-srv", "get.file/v2") == "mcp__my-srv__get_file_v2"
    long = api_name("server", "t" * 100)
    assert len(long) == 64 and API_NAME.match(long) and long != api_name("server", "t" * 99)
    pairs = [("a", "x.y"), ("a", "x/y"), ("a", "x_y")]
    names = unique_names(pairs)
    assert sorted(names.values()) == ["mcp__a__x_y", "mcp__a__x_y_2", "mcp__a__x_y_3"]
    assert unique_names(list(reversed(pairs))) == names  # the order servers answer in does not matter
    assert unique_names([("s", "Read")], taken={"mcp__s__Read"}) == {("s", "Read"): "mcp__s__Read_2"}


def test_every_content_kind_becomes_a_block_the_api_takes() -> None:
    blocks = content_blocks(
        [
            {"type": "text", "text": "hi"},
            {"type": "image", "data": "AAAA", "mimeType": "image/png"},
            {"type": "image", "data": "AAAA", "mimeType": "image/bmp"},
            {"type": "resource_link", "uri": "file:///a.txt", "name": "a.txt", "mimeType": "text/plain"},
            {"type": "resource", "resource": {"uri": "notes://1", "text": "note one"}},
            {"type": "resource", "resource": {"uri": "bin://1", "blob": "AAAA", "mimeType": "application/zip"}},
            {"type": "audio", "data": "AAAA", "mimeType": "audio/wav"},
        ]
    )
    assert blocks[0] == {"type": "text", "text": "hi"}
    assert blocks[1] == {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}}
    texts = [b.get("text", "") for b in blocks[2:]]
    assert "image/bmp" in texts[0] and "file:///a.txt" in texts[1] and "note one" in texts[2]
    assert "3 bytes" in texts[3] and "Audio" in texts[4]


def test_structured_content_error_flag_and_the_cap() -> None:
    assert tool_result({"content": [{"type": "text", "text": "7"}], "structuredContent": {"result": 7}}, 100, "t") == (
        "7",
        False,
    )
    content, is_error = tool_result({"content": [], "structuredContent": {"rows": [1, 2]}, "isError": True}, 100, "t")
    assert content == '{"rows": [1, 2]}' and is_error
    text, _ = tool_result({"content": [{"type": "text", "text": "z" * 10_000}]}, 1000, "mcp__s__big")
    assert isinstance(text, str) and text.startswith("z" * 4000) and "z" * 4001 not in text
    assert "mcp__s__big returned about 2,500 tokens, more than the limit of 1,000" in text
    assert "mcp.max_output_tokens" in text
