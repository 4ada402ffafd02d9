"""Why a request missed the prompt cache: the first part of its prefix that differs from the previous one.

The cache key covers the prefix in the API's order, model then tools → system → messages
(the API's cache prefix order), so the first difference in that order is the cause: a model switch, a tool
list that changed (an MCP server connected), a system prompt that changed (a memory file
edited), an earlier message that changed (a rewind, a compaction). With the prefix intact,
the entry outlived its lifetime, or the request added more blocks than the API looks back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tui.config.memory import MEMORY_HEADING
from tui.text.wording import plural

if TYPE_CHECKING:
    from .cost import LoopState

#: blocks the API walks back from a breakpoint looking for an earlier write
LOOKBACK_BLOCKS = 20
#: added or removed names listed one by one before they are only counted
NAMES_LISTED = 3


def _bare(block: Any) -> Any:
    """A block without its cache_control marker (markers move between requests; the cache ignores them)."""
    if isinstance(block, dict) and "cache_control" in block:
        return {k: v for k, v in block.items() if k != "cache_control"}
    return block


def _blocks(message: dict[str, Any]) -> list[Any]:
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return list(content or ())


def _extends(old: dict[str, Any], new: dict[str, Any]) -> bool:
    """True when `new` is `old` with blocks appended (a prompt merged into the last user message)."""
    if old.get("role") != new.get("role"):
        return False
    before, after = _blocks(old), _blocks(new)
    return len(after) >= len(before) and all(_bare(a) == _bare(b) for a, b in zip(before, after))


def first_changed_message(old: list[dict[str, Any]], new: list[dict[str, Any]], same: int) -> int | None:
    """Index of the first message of `old` that `new` no longer carries as it was (from `same`, the identical prefix)."""
    for index in range(same, len(old)):
        if index >= len(new):
            return index
        if old[index] is not new[index] and not _extends(old[index], new[index]):
            return index
    return None


def _grouped(sign: str, names: list[str]) -> list[str]:
    """ "+3 mcp__git tools" for an MCP server's tools, "+WebSearch" for others (counted past a few)."""
    servers: dict[str, int] = {}
    plain: list[str] = []
    for name in names:
        parts = name.split("__")
        if len(parts) >= 3 and parts[0] == "mcp":
            servers[f"mcp__{parts[1]}"] = servers.get(f"mcp__{parts[1]}", 0) + 1
        else:
            plain.append(name)
    out = [f"{sign}{plural(count, server + ' tool')}" for server, count in servers.items()]
    if len(plain) > NAMES_LISTED:
        out.append(f"{sign}{plural(len(plain), 'tool')}")
    else:
        out += [f"{sign}{name}" for name in plain]
    return out


def describe_tools_change(old: list[dict[str, Any]], new: list[dict[str, Any]]) -> str:
    """What changed in tools[]: names added and removed, else the first definition that differs."""
    old_names = [str(t.get("name")) for t in old]
    new_names = [str(t.get("name")) for t in new]
    added = [n for n in new_names if n not in set(old_names)]
    removed = [n for n in old_names if n not in set(new_names)]
    bits = _grouped("+", added) + _grouped("−", removed)
    if bits:
        return ", ".join(bits)
    if old_names != new_names:
        return "tool order changed"
    changed = next((n for n, a, b in zip(new_names, old, new) if _bare(a) != _bare(b)), "a tool")
    return f"{changed}'s definition changed"


def _system_blocks(system: Any) -> list[Any]:
    return [{"type": "text", "text": system}] if isinstance(system, str) else list(system or ())


def _block_label(block: Any) -> str:
    text = str(block.get("text", "")) if isinstance(block, dict) else ""
    if text.startswith(MEMORY_HEADING):
        return "memory"
    if text.startswith("# Environment"):
        return "environment"
    return "rules"


def describe_system_change(old: Any, new: Any) -> str:
    """Which block of system[] changed: the memory files, the environment, or the rules."""
    before, after = _system_blocks(old), _system_blocks(new)
    had = any(_block_label(b) == "memory" for b in before)
    has = any(_block_label(b) == "memory" for b in after)
    if had != has:
        return "memory files added" if has else "memory files removed"
    for index, (a, b) in enumerate(zip(before, after)):
        if _bare(a) != _bare(b):
            label = _block_label(b)
            if label == "memory":
                return "memory files edited"
            if label == "environment":
                return "the environment block changed (date, git branch)"
            return f"system[{index}] changed"
    return f"{plural(abs(len(after) - len(before)), 'block')} {'added' if len(after) > len(before) else 'removed'}"


def _minutes(seconds: float) -> str:
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes}m {rest:02d}s" if minutes < 60 else f"{minutes // 60}h {minutes % 60:02d}m"


def find_cause(
    state: LoopState, body: dict[str, Any], first_changed: int | None, gap_s: float, blocks_added: int
) -> tuple[str, str]:
    """(cause, text) of a cache break: the first difference in prefix order, else time or lookback."""
    model = str(body.get("model", ""))
    if state.model and model != state.model:
        return "model", f"model changed ({state.model} → {model})"
    tools = body.get("tools") or []
    old_tools = state.tools or []
    if tools is not old_tools and [_bare(t) for t in tools] != [_bare(t) for t in old_tools]:
        return "tools", f"tools changed ({describe_tools_change(old_tools, tools)})"
    system = body.get("system") or []
    if system is not state.system and [_bare(b) for b in _system_blocks(system)] != [
        _bare(b) for b in _system_blocks(state.system)
    ]:
        return "system", f"system prompt changed ({describe_system_change(state.system, system)})"
    if first_changed is not None:
        why = f", {state.note}" if state.note else ""
        return "messages", (f"an earlier message changed (message {first_changed + 1} of {len(state.messages)}{why})")
    if gap_s > state.ttl_s:
        life = "1-hour" if state.ttl_s >= 3600 else "5-minute"
        return "ttl", f"the cache entry outlived its {life} lifetime ({_minutes(gap_s)} since the previous request)"
    if blocks_added >= LOOKBACK_BLOCKS:
        return "lookback", (
            f"{plural(blocks_added, 'block')} since the last cache write, more than the API looks back ({LOOKBACK_BLOCKS})"
        )
    return "unknown", "the prefix is unchanged but its cache entry was not found (evicted early)"
