"""A recorded request as a command to run again: curl, or Python with the anthropic SDK.

The key is never written out: curl reads `$ANTHROPIC_API_KEY` from the shell and the SDK
reads it from the environment, so a copied snippet can be shared as it is.
"""

from __future__ import annotations

import json
import os
from typing import Any

API_VERSION = "2023-06-01"
DEFAULT_BASE = "https://api.anthropic.com"


def base_url() -> str:
    return (os.environ.get("ANTHROPIC_BASE_URL") or DEFAULT_BASE).rstrip("/")


def as_curl(body: dict[str, Any]) -> str:
    """A curl command posting `body` (a here-document, so no quoting of the JSON is needed)."""
    data = json.dumps(body, indent=2, ensure_ascii=False)
    marker = "JSON"
    while marker in data:
        marker += "_END"
    return (
        f"curl {base_url()}/v1/messages \\\n"
        '  -H "x-api-key: $ANTHROPIC_API_KEY" \\\n'
        f'  -H "anthropic-version: {API_VERSION}" \\\n'
        '  -H "content-type: application/json" \\\n'
        f"  --data-binary @- <<'{marker}'\n{data}\n{marker}\n"
    )


def as_python(body: dict[str, Any]) -> str:
    """A Python script sending `body` with the anthropic SDK and streaming the reply to stdout."""
    data = json.dumps(body, indent=2, ensure_ascii=False)
    return (
        '"""The request, sent again with the anthropic SDK (pip install anthropic; reads $ANTHROPIC_API_KEY)."""\n'
        "import json\n\nimport anthropic\n\n"
        f"BODY = json.loads({data!r})\n"
        'BODY.pop("stream", None)  # the SDK\'s stream() sets it\n\n'
        "client = anthropic.Anthropic()\n"
        "with client.messages.stream(**BODY) as stream:\n"
        "    for text in stream.text_stream:\n"
        '        print(text, end="", flush=True)\n'
        "print()\n"
        "print(stream.get_final_message().stop_reason)\n"
    )
