"""Request checks the real API enforces, with its exact 400 message texts (the real API's rules)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

MAX_CACHE_BREAKPOINTS = 4
REMOVED_SAMPLING_FIELDS = ("temperature", "top_p", "top_k")
NEW_API_VERSION = "2026-10-21"
PREFILL_MESSAGE = (
    "This model does not support assistant message prefill. The conversation must end with a user message."
)
THINKING_MODIFIED = (
    "`thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. "
    "These blocks must remain as they were in the original response."
)
THINKING_TYPES = ("thinking", "redacted_thinking")
#: `thinking.type` and `output_config.effort` values the API takes (anthropic 2.x ThinkingConfigParam, OutputConfigParam)
THINKING_CONFIG_TYPES = ("enabled", "disabled", "between_tools", "adaptive")
EFFORTS = ("low", "medium", "high", "xhigh", "max")
ENABLED_UNSUPPORTED = (
    '"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and '
    '"output_config.effort" to control thinking behavior.'
)
ADAPTIVE_UNSUPPORTED = "adaptive thinking is not supported on this model"
BUDGET_ABOVE_MAX = (
    "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at "
    "https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size"
)
#: per model, as the API has them: manual thinking only up to 4.6, adaptive from 4.6, no effort on Sonnet/Haiku 4.5
_MANUAL_ONLY = ("opus-4-5", "sonnet-4-5", "haiku-4-5")
_ADAPTIVE_ONLY = re.compile(r"opus-4-[78]|(?:opus|sonnet|haiku|fable|mythos)-5")
_NO_EFFORT = ("sonnet-4-5", "haiku-4-5")


@dataclass
class Verdict:
    """`reject` is the 400 message to answer with (or None); `warnings` are recorded but answered."""

    reject: str | None = None
    warnings: list[str] = field(default_factory=list)


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def count_cache_breakpoints(body: dict[str, Any]) -> int:
    """Blocks carrying cache_control in tools, system, messages (incl. tool_result content), plus automatic."""

    def marked(items: Any) -> int:
        n = 0
        for item in items if isinstance(items, list) else []:
            if isinstance(item, dict):
                n += 1 if isinstance(item.get("cache_control"), dict) else 0
                if item.get("type") == "tool_result":
                    n += marked(item.get("content"))
        return n

    total = marked(body.get("tools")) + marked(body.get("system"))
    for message in body.get("messages") or []:
        if isinstance(message, dict):
            total += marked(message.get("content"))
    return total + (1 if isinstance(body.get("cache_control"), dict) else 0)


def check_tool_pairing(messages: list[dict[str, Any]]) -> str | None:
    """Every tool_use answered first thing in the next user turn; no tool_result without its tool_use."""
    # The API merges consecutive same-role turns; system-role messages don't take part in the pairing.
    groups: list[tuple[str, list[tuple[int, int, dict[str, Any]]]]] = []
    for mi, message in enumerate(messages):
        role = message.get("role")
        if role == "system":
            continue
        entries = [(mi, bi, b) for bi, b in enumerate(_blocks(message))]
        if groups and groups[-1][0] == role:
            groups[-1][1].extend(entries)
        else:
            groups.append((str(role), entries))
    pending: list[str] = []
    pending_index = 0
    for role, entries in groups:
        if role == "user":
            leading: set[str] = set()
            for _, _, block in entries:
                if block.get("type") != "tool_result":
                    break
                leading.add(str(block.get("tool_use_id")))
            missing = [i for i in pending if i not in leading]
            if missing:
                return (
                    f"messages.{pending_index}: `tool_use` ids were found without `tool_result` blocks "
                    f"immediately after: {', '.join(missing)}. Each `tool_use` block must have a "
                    "corresponding `tool_result` block in the next message."
                )
            for mi, bi, block in entries:
                if block.get("type") == "tool_result" and block.get("tool_use_id") not in pending:
                    return (
                        f"messages.{mi}.content.{bi}: unexpected `tool_use_id` found in `tool_result` blocks: "
                        f"{block.get('tool_use_id')}. Each `tool_result` block must have a corresponding "
                        "`tool_use` block in the previous message."
                    )
            pending = []
        elif role == "assistant":
            pending = [str(b.get("id")) for _, _, b in entries if b.get("type") == "tool_use"]
            pending_index = next(
                (mi for mi, _, b in entries if b.get("type") == "tool_use"), entries[0][0] if entries else 0
            )
    if pending:
        return (
            f"messages.{pending_index}: `tool_use` ids were found without `tool_result` blocks immediately "
            f"after: {', '.join(pending)}. Each `tool_use` block must have a corresponding `tool_result` "
            "block in the next message."
        )
    return None


def check_thinking_echo(
    messages: list[dict[str, Any]],
    sent_by_tool_id: dict[str, list[dict[str, Any]]],
    sent_by_signature: dict[str, list[dict[str, Any]]],
) -> str | None:
    """Thinking blocks the server sent must come back unchanged and in order."""
    last_assistant = max((i for i, m in enumerate(messages) if m.get("role") == "assistant"), default=-1)
    for mi, message in enumerate(messages):
        if message.get("role") != "assistant":
            continue
        blocks = _blocks(message)
        echoed = [(bi, b) for bi, b in enumerate(blocks) if b.get("type") in THINKING_TYPES]
        sent = None
        for b in blocks:
            key_tool = b.get("id") if b.get("type") == "tool_use" else None
            if key_tool in sent_by_tool_id:
                sent = sent_by_tool_id[key_tool]
                break
            if b.get("type") == "thinking" and b.get("signature") in sent_by_signature:
                sent = sent_by_signature[b["signature"]]
                break
        if not sent:
            continue
        has_tool_use = any(b.get("type") == "tool_use" for b in blocks)
        must_keep = mi == last_assistant and has_tool_use
        if not echoed and not must_keep:
            continue  # earlier turns may drop their thinking; the API strips it anyway
        got = [b for _, b in echoed]
        if got != sent:
            k = next(k for k in range(max(len(got), len(sent))) if k >= len(got) or k >= len(sent) or got[k] != sent[k])
            position = echoed[k][0] if k < len(echoed) else (echoed[-1][0] + 1 if echoed else 0)
            return f"messages.{mi}.content.{position}: {THINKING_MODIFIED}"
    return None


def check_thinking_config(body: dict[str, Any]) -> str | None:
    """`thinking` and `output_config.effort` as the API checks them, per model as the API does."""
    model = str(body.get("model", ""))
    thinking = body.get("thinking")
    if thinking is not None:
        kind = thinking.get("type") if isinstance(thinking, dict) else None
        if kind not in THINKING_CONFIG_TYPES:
            return (
                f"thinking: Input tag {kind!r} found using 'type' does not match any of the expected tags: "
                + ", ".join(repr(t) for t in THINKING_CONFIG_TYPES)
            )
        if kind == "enabled":
            budget = thinking.get("budget_tokens")
            if not isinstance(budget, int) or budget < 1024:
                return "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
            if budget >= body.get("max_tokens", 0):
                return BUDGET_ABOVE_MAX
            if _ADAPTIVE_ONLY.search(model):
                return ENABLED_UNSUPPORTED
        if kind == "adaptive" and any(tag in model for tag in _MANUAL_ONLY):
            return ADAPTIVE_UNSUPPORTED
    config = body.get("output_config")
    if config is not None:
        effort = config.get("effort") if isinstance(config, dict) else None
        if effort is not None and effort not in EFFORTS:
            return "output_config.effort: Input should be " + ", ".join(repr(e) for e in EFFORTS[:-1]) + " or 'max'"
        if effort is not None and any(tag in model for tag in _NO_EFFORT):
            return "output_config.effort: This model does not support the effort parameter."
    return None


def _is_pause_turn_resume(message: dict[str, Any]) -> bool:
    """A final assistant turn is allowed when it ends with a server tool call still awaiting its result."""
    blocks = _blocks(message)
    called = {b.get("id") for b in blocks if b.get("type") == "server_tool_use"}
    answered = {b.get("tool_use_id") for b in blocks if "tool_use_id" in b}
    return bool(called - answered)


def validate_request(
    body: dict[str, Any],
    headers: dict[str, str],
    sent_by_tool_id: dict[str, list[dict[str, Any]]] | None = None,
    sent_by_signature: dict[str, list[dict[str, Any]]] | None = None,
) -> Verdict:
    """All checks in the order the API applies them; the first rejection wins."""
    verdict = Verdict()
    version = headers.get("anthropic-version", "")
    if version >= NEW_API_VERSION:
        for name in REMOVED_SAMPLING_FIELDS:
            if name in body:
                verdict.reject = f"{name}: Extra inputs are not permitted"
                return verdict
    if not isinstance(body.get("max_tokens"), int):
        verdict.reject = "max_tokens: Field required"
        return verdict
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        verdict.reject = "messages: Field required"
        return verdict
    for i, message in enumerate(messages):
        if not isinstance(message, dict) or message.get("role") not in ("user", "assistant", "system"):
            verdict.reject = f"messages.{i}.role: Input should be 'user', 'assistant' or 'system'"
            return verdict
        content = message.get("content")
        if not isinstance(content, (str, list)):
            verdict.reject = f"messages.{i}.content: Input should be a valid list"
            return verdict
        if not content and i != len(messages) - 1:
            verdict.reject = (
                f"messages.{i}: all messages must have non-empty content except for the optional "
                "final assistant message"
            )
            return verdict
    config_problem = check_thinking_config(body)
    if config_problem:
        verdict.reject = config_problem
        return verdict
    if body.get("stream") is not True:
        verdict.reject = "stream: this fake server only answers streaming requests (stream: true)"
        return verdict
    system = body.get("system")
    if system is not None and not (
        isinstance(system, list) and all(isinstance(b, dict) and b.get("type") == "text" for b in system)
    ):
        verdict.warnings.append("system: expected an array of text blocks")
    found = count_cache_breakpoints(body)
    if found > MAX_CACHE_BREAKPOINTS:
        verdict.reject = (
            f"A maximum of {MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. Found {found}."
        )
        return verdict
    non_system = [m for m in messages if m.get("role") != "system"]
    if non_system and non_system[-1].get("role") != "user" and not _is_pause_turn_resume(non_system[-1]):
        verdict.reject = PREFILL_MESSAGE
        return verdict
    pairing = check_tool_pairing(messages)
    if pairing:
        verdict.reject = pairing
        return verdict
    from .images import check_images

    if image_problem := check_images(messages):
        verdict.reject = image_problem
        return verdict
    thinking = check_thinking_echo(messages, sent_by_tool_id or {}, sent_by_signature or {})
    if thinking:
        verdict.reject = thinking
    return verdict
