"""What an image costs in a token estimate: about 1,600 tokens, never its base64 length.

The API scales a picture down to about 1.15 megapixels and charges width × height / 750 tokens,
so one image costs at most ~1,600 input tokens; counted as characters / 4, a 3 MB screenshot's
base64 would seem to fill the whole context window.
"""

from __future__ import annotations

from typing import Any

#: an image's token cost at most (1092 × 1092 / 750, the API's own figure for its largest scaled size)
IMAGE_TOKENS = 1600
#: what a JSON dump holds when an image block may be in it (json.dumps' default separators)
_MARK = '"type": "image"'


def image_chars(dumped: str, value: Any) -> tuple[int, int]:
    """(characters of base64 image data in `value`, number of images), given `dumped`, its JSON; cheap when none."""
    if _MARK not in dumped:
        return 0, 0
    chars = count = 0
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            source = item.get("source")
            if item.get("type") == "image" and isinstance(source, dict) and isinstance(source.get("data"), str):
                chars += len(source["data"])
                count += 1
            else:
                stack.extend(item.values())
    return chars, count
