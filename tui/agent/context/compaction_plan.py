"""What a compaction would summarise and keep (turn ranges, message and token counts), and asking first.

The plan is shown before a compaction (`compaction = "ask"`), in `/context`, and with the
finished compaction beside the summary; `dropped_excerpts` is what the inspector and `/context`
list of the messages a summary replaced.
"""

from __future__ import annotations

from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import TYPE_CHECKING, Any

from tui.agent.events import CompactionProposed
from tui.text.wording import plural

from .compaction import choose_cut
from .compaction_pieces import choose_pieces, is_prompt
from .context import estimate_tokens
from .pins import PINNED_HEADER
from .summary_words import SUMMARY_HEADER

if TYPE_CHECKING:
    from tui.agent.session import AgentSession

#: characters of each dropped message shown
EXCERPT_CHARS = 160
#: dropped messages listed at most (then "… N more")
EXCERPTS_LISTED = 200


def _summary_only(message: dict[str, Any]) -> bool:
    """A user message holding only an earlier compaction's summary (and pins): no turn of its own."""
    content = message.get("content")
    texts = (
        [b for b in content or () if isinstance(b, dict) and b.get("type") == "text"]
        if isinstance(content, list)
        else []
    )
    return (
        bool(texts)
        and str(texts[0].get("text", "")).startswith(SUMMARY_HEADER)
        and all(str(b.get("text", "")).startswith((SUMMARY_HEADER, PINNED_HEADER)) for b in texts)
    )


def _turn_numbers(session: AgentSession, messages: list[dict[str, Any]]) -> dict[int, int]:
    """The session turn of each prompt in `messages` (counted back from the latest turn)."""
    prompts = [i for i, m in enumerate(messages) if is_prompt(m) and not _summary_only(m)]
    last = session.turn_count if session.turn_count >= len(prompts) else len(prompts)
    return {index: last - (len(prompts) - 1 - k) for k, index in enumerate(prompts)}


def _span(turns: list[int], lead: str = "") -> str:
    """ "turns 3–7", "turn 4", "the rest of turn 7, turns 8–9", or "no whole turn"."""
    parts = [lead] if lead else []
    if turns:
        parts.append(f"turn {turns[0]}" if len(turns) == 1 else f"turns {turns[0]}–{turns[-1]}")
    return ", ".join(parts) or "no whole turn"


def _starts_with_summary(messages: list[dict[str, Any]]) -> bool:
    content = messages[0].get("content") if messages else None
    first = content[0] if isinstance(content, list) and content else {}
    return isinstance(first, dict) and str(first.get("text", "")).startswith(SUMMARY_HEADER)


def compaction_plan(session: AgentSession, messages: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """What compacting `messages` (the session's history) now would summarise and keep, as plain data."""
    messages = session.messages if messages is None else messages
    used, estimated = session.context.current()
    plan: dict[str, Any] = {
        "messages": len(messages),
        "used_tokens": used,
        "estimated": estimated,
        "window": session.context.window(),
        "pinned": list(session.pins),
    }
    cut = choose_cut(messages)
    if cut is None:
        return {**plan, "possible": False}
    numbers = _turn_numbers(session, messages)
    older_turns = [n for i, n in sorted(numbers.items()) if i < cut]
    kept_turns = [n for i, n in sorted(numbers.items()) if i >= cut]
    split = older_turns.pop() if older_turns and not is_prompt(messages[cut]) else None  # a turn cut in two
    older, kept = messages[:cut], messages[cut:]
    earlier = _starts_with_summary(older)
    return {
        **plan,
        **_pieces_forecast(session, older),
        "possible": True,
        "cut": cut,
        "summarised": {
            "messages": cut,
            "tokens": estimate_tokens(older),
            "earlier_summary": earlier,
            "turns": ", ".join(
                filter(
                    None,
                    [
                        "the earlier summary" if earlier else "",
                        _span(older_turns) if older_turns else "",
                        f"the start of turn {split}" if split is not None else "",
                    ],
                )
            )
            or "no whole turn",
        },
        "kept": {
            "messages": len(kept),
            "tokens": estimate_tokens(kept),
            "turns": _span(kept_turns, f"the rest of turn {split}" if split is not None else ""),
        },
    }


def _pieces_forecast(session: AgentSession, older: list[dict[str, Any]]) -> dict[str, Any]:
    """The summary requests compacting `older` takes, and what it would leave out (compaction_pieces.py)."""
    try:
        pieces = choose_pieces(session, older)
    except RuntimeError:
        return {}
    left = {"left_out": {"messages": pieces.left_out, "tokens": pieces.left_out_tokens}} if pieces.left_out else {}
    return {"requests": len(pieces.spans), **left}


def _excerpt(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    bits: list[str] = []
    for block in content or ():
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text":
            bits.append(str(block.get("text", "")))
        elif kind == "tool_use":
            arg = next((str(v) for v in (block.get("input") or {}).values()), "")
            bits.append(f"→ {block.get('name')}({arg[:40]})")
        elif kind == "tool_result":
            body = block.get("content")
            size = len(body) if isinstance(body, str) else len(str(body))
            bits.append(f"← result ({plural(size, 'char')})")
        elif kind:
            bits.append(f"[{kind}]")
    return " ".join(bits)


def dropped_excerpts(older: list[dict[str, Any]]) -> tuple[dict[str, Any], ...]:
    """One line per summarised message: its position, role, the start of its text and its tokens."""
    out = [
        {
            "index": i,
            "role": str(m.get("role")),
            "text": " ".join(_excerpt(m).split())[:EXCERPT_CHARS],
            "tokens": estimate_tokens(m),
        }
        for i, m in enumerate(older[:EXCERPTS_LISTED])
    ]
    if len(older) > EXCERPTS_LISTED:
        rest = older[EXCERPTS_LISTED:]
        out.append(
            {
                "index": EXCERPTS_LISTED,
                "role": "…",
                "text": f"… and {len(rest)} more messages",
                "tokens": estimate_tokens(rest),
            }
        )
    return tuple(out)


def ask_to_compact(session: AgentSession) -> dict[str, Any]:
    """Publish CompactionProposed and wait for the answer; an interrupt answers "later"."""
    reply: Future[dict[str, Any]] = Future()
    session.publish(CompactionProposed(plan=compaction_plan(session), reply=reply))
    while True:
        try:
            answer = reply.result(timeout=0.1)
        except FutureTimeout:
            if session.cancel_event.is_set():
                reply.cancel()
                return {"choice": "later", "focus": ""}
            continue
        return answer if isinstance(answer, dict) else {"choice": "later", "focus": ""}
