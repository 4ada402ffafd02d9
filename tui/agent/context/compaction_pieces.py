"""A history larger than one summary request can hold: summarised in pieces, each within the window.

The messages to summarise are split where a request may start (a prompt, or an assistant message: every
tool_use keeps its tool_result) and packed, newest first, into at most MAX_PIECES pieces of at most
`piece_budget` tokens. The pieces are then summarised oldest first, each request carrying the summary of
the ones before it. What is older than the pieces is left out unsummarised, and the summary says so
(`left_out_note`): a history many windows large (a resumed session, a switch to a smaller window) would
otherwise cost a request per window, minutes and dollars, for a `hi`. The transcript keeps every message,
and /rewind reaches the prompts left out.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tui.agent.cost.pricing import model_info
from tui.text.wording import plural, shorten

from .context import CHARS_PER_TOKEN, estimate_tokens, summary_budget
from .summary_words import CARRIED, CARRIED_HEADER, INSTRUCTION, LEFT_OUT_FIRST_PIECE, SUMMARY_HEADER

if TYPE_CHECKING:
    from tui.agent.session import AgentSession

#: summary requests one compaction sends at most (the oldest part of a longer history is left out)
MAX_PIECES = 4
#: the share of the window kept free for the difference between the estimate (4 characters a token) and the
#: API's count
MARGIN = 0.1
#: fewer tokens than this left for messages: no summary request can be sent at all
MIN_PIECE_TOKENS = 512
#: characters every string of a message is cut to at the least, when one message alone is over the budget
MIN_STRING_CHARS = 200
#: keys whose values are never shortened (ids, names, kinds)
_KEPT_KEYS = frozenset({"type", "id", "tool_use_id", "name", "role", "cache_control"})


def is_prompt(message: dict[str, Any]) -> bool:
    """A user message that starts a turn (holds no tool_result)."""
    if message.get("role") != "user":
        return False
    content = message.get("content")
    if isinstance(content, str):
        return True
    return not any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content or ())


@dataclass(frozen=True)
class Pieces:
    """How `older` is summarised: `spans` ([start, end) of older, oldest first) and what is left out before them."""

    spans: tuple[tuple[int, int], ...]
    budget: int
    window: int
    left_out: int  # messages older than the first piece
    left_out_tokens: int
    total_tokens: int
    carried: str  # an earlier compaction's summary among the messages left out: the first piece starts from it


def summary_window(session: AgentSession) -> int:
    """The window a summary request must fit: the session's, or the small fast model's when that is smaller."""
    window = session.context.window()
    small = session.options.small_fast_model
    return min(window, model_info(small).context_window) if small else window


def piece_budget(session: AgentSession, focus: str, ratio: float = 1.0) -> tuple[int, int]:
    """(tokens one piece's messages may take, the window): the window less the margin, the summary's output, the
    system prompt, the tools, the instruction and a carried summary as long as the output. `ratio`: the API's
    count over our estimate, when a request it refused as too long told us (estimates are scaled by it)."""
    window = summary_window(session)
    output = summary_budget(session)
    estimated = (
        estimate_tokens(session.system_blocks())
        + estimate_tokens(session.tool_definitions())
        + estimate_tokens(f"{INSTRUCTION}\n\n{CARRIED}\n\n{focus}")
        + output
    )
    return int((window * (1 - MARGIN) - output) / ratio) - estimated, window


def _starts(older: list[dict[str, Any]]) -> list[int]:
    """Where a piece may start: the first message, a prompt, or an assistant message."""
    return [0, *(i for i in range(1, len(older)) if older[i].get("role") == "assistant" or is_prompt(older[i]))]


def earlier_summary(message: dict[str, Any]) -> str:
    """The text of an earlier compaction's summary message (and its pins), or ""."""
    content = message.get("content")
    texts = [str(b.get("text", "")) for b in content or () if isinstance(b, dict) and b.get("type") == "text"]
    return "\n\n".join(texts) if texts and texts[0].startswith(SUMMARY_HEADER) else ""


def plan_pieces(
    older: list[dict[str, Any]], budget: int, window: int, carry_chars: int, sizes: list[int] | None = None
) -> Pieces:
    """Pack whole groups (a start up to the next) into pieces from the newest end; at most MAX_PIECES.
    `sizes`: each message's estimated tokens, when already counted."""
    sizes = sizes if sizes is not None else [estimate_tokens(m) for m in older]
    starts = _starts(older)
    bounds = list(zip(starts, [*starts[1:], len(older)], strict=True))
    spans: list[tuple[int, int]] = []
    end, tokens = len(older), 0
    first = len(older)
    for start, stop in reversed(bounds):
        size = sum(sizes[start:stop])
        if tokens and tokens + size > budget:  # this group opens the next (older) piece
            spans.append((first, end))
            if len(spans) == MAX_PIECES:
                break
            end, tokens = stop, 0
        first, tokens = start, tokens + size
    else:
        spans.append((first, end))
    spans.reverse()
    left_out = spans[0][0]
    carried = earlier_summary(older[0])[:carry_chars] if left_out else ""
    return Pieces(
        spans=tuple(spans),
        budget=budget,
        window=window,
        left_out=left_out,
        left_out_tokens=sum(sizes[:left_out]),
        total_tokens=sum(sizes),
        carried=carried,
    )


def choose_pieces(session: AgentSession, older: list[dict[str, Any]], focus: str = "", ratio: float = 1.0) -> Pieces:
    """How `older` is summarised: in one request when it holds it all (no room kept for a carried summary), else
    in pieces; raises RuntimeError when the system prompt and tools leave no room for any request."""
    budget, window = piece_budget(session, focus, ratio)
    if budget < MIN_PIECE_TOKENS:
        raise RuntimeError(
            f"the system prompt and tools leave no room for a summary request in the {window:,}-token window"
        )
    carry = summary_budget(session)
    sizes = [estimate_tokens(m) for m in older]
    pieces = plan_pieces(older, budget + carry, window, carry * CHARS_PER_TOKEN, sizes)
    if len(pieces.spans) > 1:
        pieces = plan_pieces(older, budget, window, carry * CHARS_PER_TOKEN, sizes)
    return pieces


def _text_block(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def piece_messages(part: list[dict[str, Any]], lead: str, instruction: str) -> list[dict[str, Any]]:
    """One piece's request messages: `lead` (the carried summary, or a note) first, the instruction last."""
    messages = list(part)
    if lead:
        first = messages[0]
        if first.get("role") == "user":
            content = first["content"] if isinstance(first["content"], list) else [_text_block(first["content"])]
            messages[0] = {"role": "user", "content": [_text_block(lead), *content]}
        else:
            messages.insert(0, {"role": "user", "content": [_text_block(lead)]})
    block = _text_block(instruction)
    last = messages[-1]
    if last.get("role") == "user":
        content = last["content"] if isinstance(last["content"], list) else [_text_block(last["content"])]
        messages[-1] = {"role": "user", "content": [*content, block]}
    else:
        messages.append({"role": "user", "content": [block]})
    return messages


def lead_text(carried: str, left_out: bool) -> str:
    """What opens a piece's request: the running summary, or (first piece, older part left out) a note."""
    if carried:
        return f"{CARRIED_HEADER}\n\n{carried}"
    return LEFT_OUT_FIRST_PIECE if left_out else ""


def _cut_strings(value: Any, cap: int) -> Any:
    """`value` with every string longer than `cap` cut to it (and saying so); images become a note."""
    if isinstance(value, str):
        return value if len(value) <= cap else value[:cap] + f" [… {plural(len(value) - cap, 'character')} left out]"
    if isinstance(value, list):
        return [_cut_strings(v, cap) for v in value]
    if isinstance(value, dict):
        if value.get("type") in ("image", "document", "thinking", "redacted_thinking"):  # a cut one is no longer valid
            return _text_block(f"[{value['type']} left out of the summary request]")
        return {k: (v if k in _KEPT_KEYS else _cut_strings(v, cap)) for k, v in value.items()}
    return value


def fit(messages: list[dict[str, Any]], budget: int) -> list[dict[str, Any]]:
    """`messages` within `budget` tokens, their longest strings shortened as little as needed (the history itself
    is untouched); raises RuntimeError when even MIN_STRING_CHARS a string is too much."""
    if estimate_tokens(messages) <= budget:
        return messages
    longest = max(len(s) for s in _strings(messages))
    low, high = MIN_STRING_CHARS, max(MIN_STRING_CHARS, longest)
    if estimate_tokens(_cut_strings(messages, low)) > budget:
        raise RuntimeError("one message is too large for a summary request even when shortened")
    while low < high:  # the largest cap that fits
        mid = (low + high + 1) // 2
        if estimate_tokens(_cut_strings(messages, mid)) <= budget:
            low = mid
        else:
            high = mid - 1
    cut: list[dict[str, Any]] = _cut_strings(messages, low)
    return cut


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    return [json.dumps(value)]


def left_out_note(older: list[dict[str, Any]], pieces: Pieces) -> str:
    """What the summary says about the messages left out unsummarised (none: "")."""
    if not pieces.left_out:
        return ""
    first = next((m for m in older[: pieces.left_out] if is_prompt(m) and not earlier_summary(m)), None)
    quote = ""
    if first is not None:
        content = first.get("content")
        text = content if isinstance(content, str) else " ".join(str(b.get("text", "")) for b in content or ())
        quote = f" It began with the prompt “{shorten(' '.join(text.split()), 300)}”."
    requests = math.ceil(pieces.total_tokens / max(1, pieces.budget))
    carried = " The summary of an earlier compaction among them is kept." if pieces.carried else ""
    return (
        f"Note: the oldest {plural(pieces.left_out, 'message')} of this conversation (about "
        f"{plural(pieces.left_out_tokens, 'token')}, {pieces.left_out_tokens / pieces.window:.1f}× the "
        f"{pieces.window:,}-token context window) were left out of this summary unread: summarising all of it "
        f"would have taken {plural(requests, 'request')}, and a compaction sends at most {MAX_PIECES}.{carried}{quote} "
        "The session's transcript keeps every message, and /rewind returns to any prompt among them."
    )
