"""The request checks the real API makes that an agent loop most often trips over.

The offline model answers these with the API's own 400 messages (as the real API words them), so
a loop bug shows up offline exactly as it would against the real service.
"""

from __future__ import annotations

from typing import Any

REMOVED_SAMPLING_FIELDS = ("temperature", "top_p", "top_k")
#: what the SDK's types allow (anthropic 2.x ThinkingConfigParam, OutputConfigParam)
THINKING_TYPES = ("enabled", "disabled", "between_tools", "adaptive")
EFFORTS = ("low", "medium", "high", "xhigh", "max")


def thinking_error(body: dict[str, Any]) -> str | None:
    """The API's message for a `thinking` or `output_config` it would refuse, or None."""
    thinking = body.get("thinking")
    if thinking is not None:
        kind = thinking.get("type") if isinstance(thinking, dict) else None
        if kind not in THINKING_TYPES:
            return (
                f"thinking: Input tag {kind!r} found using 'type' does not match any of the expected tags: "
                + ", ".join(repr(t) for t in THINKING_TYPES)
            )
        budget = thinking.get("budget_tokens")
        if kind == "enabled" and (not isinstance(budget, int) or budget < 1024):
            return "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
        if kind == "enabled" and budget >= body.get("max_tokens", 0):
            return "`max_tokens` must be greater than `thinking.budget_tokens`."
    config = body.get("output_config")
    effort = config.get("effort") if isinstance(config, dict) else None
    if config is not None and (not isinstance(config, dict) or (effort is not None and effort not in EFFORTS)):
        return "output_config.effort: Input should be " + ", ".join(repr(e) for e in EFFORTS[:-1]) + " or 'max'"
    return None


def _blocks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [block for block in content or [] if isinstance(block, dict)]


def request_error(body: dict[str, Any]) -> str | None:
    """The invalid_request_error message the API would give this body, or None if valid."""
    for name in REMOVED_SAMPLING_FIELDS:
        if name in body:
            return f"{name}: Extra inputs are not permitted"
    if not isinstance(body.get("max_tokens"), int):
        return "max_tokens: Field required"
    if problem := thinking_error(body):
        return problem
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "messages: at least one message is required"
    if messages[-1].get("role") != "user":
        return "This model does not support assistant message prefill. The conversation must end with a user message."
    for position, message in enumerate(messages):
        if message.get("role") != "assistant":
            continue
        wanted = [b.get("id") for b in _blocks(message.get("content")) if b.get("type") == "tool_use"]
        if not wanted:
            continue
        following = messages[position + 1] if position + 1 < len(messages) else {}
        answered = {b.get("tool_use_id") for b in _blocks(following.get("content")) if b.get("type") == "tool_result"}
        missing = [str(tool_id) for tool_id in wanted if tool_id not in answered]
        if missing or following.get("role") != "user":
            return (
                f"messages.{position}: `tool_use` ids were found without `tool_result` blocks "
                f"immediately after: {', '.join(missing or map(str, wanted))}. Each `tool_use` "
                "block must have a corresponding `tool_result` block in the next message."
            )
    return None
