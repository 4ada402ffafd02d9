"""The floor under `-p`: import the SDK and make the same three streamed requests, nothing else.

Run as its own process by bench_print.py against the same fake API: the conversation grows as the agent's
does (each reply's tool calls answered with a short result), but no tool runs, no settings, no UI. Any Python
client of this SDK pays at least this; `-p` is measured against it.
"""

from __future__ import annotations

import sys

import anthropic


def main(base_url: str, prompt: str) -> None:
    client = anthropic.Anthropic(base_url=base_url, api_key="sk-test", max_retries=0)
    messages: list[dict] = [{"role": "user", "content": prompt}]
    for _ in range(3):
        with client.messages.stream(model="claude-sonnet-5-5", max_tokens=16000, messages=messages) as stream:
            for _event in stream:
                pass
            reply = stream.get_final_message()
        content = [block.model_dump(exclude_none=True) for block in reply.content]
        messages.append({"role": "assistant", "content": content})
        calls = [b for b in content if b.get("type") == "tool_use"]
        if not calls:
            break
        messages.append(
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": b["id"], "content": "ok"} for b in calls],
            }
        )
    print(reply.content[-1].text if reply.content and reply.content[-1].type == "text" else "")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
