"""What fills the context window: system prompt, memory, each tool, each turn, the biggest tool results.

Sizes are estimates (characters / 4, as the meter's between measurements) scaled so they
add up to the last measured request when there is one. The same figures feed `/context`
and the `context` key of `-p --output-format json`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tui.text.wording import middle_cut

from .compaction import choose_cut
from .compaction_plan import compaction_plan
from .context import estimate_tokens, reply_reserve, summary_budget

if TYPE_CHECKING:
    from tui.agent.session import AgentSession

#: how many tool results and consumers are named
TOP = 5
#: a label keeps at most this many characters, cut in the middle (a path keeps its file name; screens cut more)
LABEL_CHARS = 120


def _user_text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    return " ".join(b.get("text", "") for b in content or () if isinstance(b, dict) and b.get("type") == "text").strip()


def _turns(messages: list[dict[str, Any]]) -> list[tuple[str, int, int]]:
    """(first prompt words, start index, tokens) of each turn: a prompt and everything until the next."""
    turns: list[tuple[str, int, int]] = []
    for index, message in enumerate(messages):
        text = _user_text(message) if message.get("role") == "user" else ""
        tokens = estimate_tokens(message)
        if text or not turns:
            turns.append((middle_cut(" ".join(text.split()), LABEL_CHARS) or "(start)", index, tokens))
        else:
            label, start, total = turns[-1]
            turns[-1] = (label, start, total + tokens)
    return turns


def _tool_results(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The biggest tool results, named by their tool and input."""
    names: dict[str, str] = {}
    found: list[dict[str, Any]] = []
    for message in messages:
        for block in message.get("content") or ():
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_use":
                arg = next((str(v) for v in (block.get("input") or {}).values()), "")
                names[str(block.get("id"))] = f"{block.get('name')}({middle_cut(arg, LABEL_CHARS)})"
            elif block.get("type") == "tool_result":
                found.append(
                    {
                        "label": names.get(str(block.get("tool_use_id")), "tool result"),
                        "tokens": estimate_tokens(block.get("content")),
                    }
                )
    return sorted(found, key=lambda r: -r["tokens"])[:TOP]


def context_map(session: AgentSession) -> dict[str, Any]:
    """The figures of /context as plain data (JSON-able)."""
    tracker = session.context
    window = tracker.window()
    used, estimated = tracker.current()
    messages = session.messages
    system = session.system_blocks()
    memory = estimate_tokens(session.memory_text) if session.memory_text else 0
    parts: list[dict[str, Any]] = [
        {"kind": "system", "label": "system prompt", "tokens": max(estimate_tokens(system) - memory, 0)}
    ]
    if memory:
        parts.append({"kind": "memory", "label": "memory files", "tokens": memory})
    parts += [
        {"kind": "tool", "label": f"tool {t.get('name')}", "tokens": estimate_tokens(t)}
        for t in session.tool_definitions()
    ]
    parts += [
        {"kind": "turn", "label": f"turn: {label}", "tokens": tokens, "start": start}
        for label, start, tokens in _turns(messages)
    ]
    raw = sum(p["tokens"] for p in parts) or 1
    scale = used / raw if used else 1.0
    for part in parts:
        part["tokens"] = int(part["tokens"] * scale)
    categories: dict[str, int] = {}
    for part in parts:
        categories[part["kind"]] = categories.get(part["kind"], 0) + part["tokens"]
    opts = session.options
    threshold = float(getattr(opts, "auto_compact_threshold", 0.8) or 0)
    headroom = reply_reserve(session) + summary_budget(session)
    cut = choose_cut(messages)
    dropped = int(estimate_tokens(messages[:cut]) * scale) if cut else 0
    usage = getattr(tracker, "last_usage", None) or {}
    cached = int(usage.get("cache_read_input_tokens") or 0)
    prompt_tokens = cached + int(usage.get("input_tokens") or 0) + int(usage.get("cache_creation_input_tokens") or 0)
    breakpoints = ["end of the system prompt", "end of the tool definitions"]
    if messages:
        breakpoints.append(f"last message (#{len(messages)})")
    return {
        "window": window,
        "used": used,
        "estimated": estimated,
        "free": max(window - used, 0),
        "compaction_threshold": int(threshold * window - headroom) if threshold > 0 else None,
        "categories": categories,
        "parts": [{k: v for k, v in p.items() if k != "start"} for p in parts],
        "top": sorted(({"label": p["label"], "tokens": p["tokens"]} for p in parts), key=lambda p: -p["tokens"])[:TOP],
        "tool_results": [{**r, "tokens": int(r["tokens"] * scale)} for r in _tool_results(messages)],
        "cache_breakpoints": breakpoints,
        "cached_share": round(cached / prompt_tokens, 3) if prompt_tokens else None,
        "compaction_would_drop": {"messages": cut or 0, "tokens": dropped},
        "compaction": str(getattr(opts, "compaction", "auto")),
        "compaction_plan": compaction_plan(session, messages),
        "pinned": list(getattr(session, "pins", ())),
        "last_compaction": _last_compaction(session),
        "memory_files": memory_files(session),
    }


def memory_files(session: AgentSession) -> list[dict[str, Any]]:
    """Each memory file and `.claude/rules` rule loaded: its path, tokens, and where it went (JSON-able)."""
    files = [
        {"path": str(m.path), "tokens": estimate_tokens(m.text), "sent": "system prompt"}
        for m in getattr(session, "memory_files", ())
    ]
    rules = getattr(session, "path_rules", None)
    sent = rules.sent if rules is not None else []
    return files + [
        {"path": str(m.path), "tokens": estimate_tokens(m.text), "sent": "after a tool result (paths: matched)"}
        for m in sent
    ]


def _last_compaction(session: AgentSession) -> dict[str, Any] | None:
    """The latest compaction: its summary beside what it dropped (JSON-able)."""
    done = getattr(session, "compactions", None)
    if not done:
        return None
    last = done[-1]
    return {
        "summary": last["summary"],
        "summary_tokens": last["summary_tokens"],
        "focus": last["focus"],
        "automatic": last["automatic"],
        "plan": last["plan"],
        "dropped": list(last["dropped"]),
        "compactions": len(done),
    }
