"""What changed between two request bodies, computed on the structure, not on JSON text.

A healthy agent loop only appends to `messages` (assistant turn, then tool results), so
that is reported in one line; anything else (system, tools, parameters, an earlier
message, a moved `cache_control` breakpoint) is listed explicitly because it costs cache.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from tui.text.wording import plural

ChangeKind = Literal["same", "appended", "changed", "added", "removed"]


@dataclass(frozen=True)
class Change:
    """One line of the Diff view."""

    kind: ChangeKind
    text: str

    def to_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "text": self.text}


def strip_cache_control(value: Any) -> Any:
    """A copy of `value` without any `cache_control` keys (to tell breakpoint moves apart)."""
    if isinstance(value, dict):
        return {k: strip_cache_control(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [strip_cache_control(v) for v in value]
    return value


def _role_summary(messages: list[Any]) -> str:
    return ", ".join(str(m.get("role", "?")) if isinstance(m, dict) else "?" for m in messages)


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _describe_change(where: str, old: Any, new: Any) -> Change:
    """A changed value: say whether only cache_control moved."""
    if strip_cache_control(old) == strip_cache_control(new):
        return Change("changed", f"{where}: cache_control moved (content unchanged)")
    return Change("changed", f"{where}: changed")


def _diff_messages(old: list[Any], new: list[Any]) -> list[Change]:
    common = 0
    for a, b in zip(old, new):
        if a != b:
            break
        common += 1
    changes: list[Change] = []
    for i in range(common, min(len(old), len(new))):
        if old[i] != new[i]:
            role = new[i].get("role", "?") if isinstance(new[i], dict) else "?"
            changes.append(_describe_change(f"messages[{i}] ({role})", old[i], new[i]))
    if len(new) > len(old):
        added = new[len(old) :]
        kind: ChangeKind = "appended" if not changes else "added"
        changes.append(Change(kind, f"messages: +{len(added)} appended ({_role_summary(added)})"))
    elif len(new) < len(old):
        changes.append(Change("removed", f"messages: -{len(old) - len(new)} removed from the end"))
    return changes


def _diff_tools(old: list[Any], new: list[Any]) -> list[Change]:
    def by_name(tools: list[Any]) -> dict[str, Any]:
        return {str(t.get("name", i)) if isinstance(t, dict) else str(i): t for i, t in enumerate(tools)}

    old_map, new_map = by_name(old), by_name(new)
    changes = [Change("added", f"tools: +{name}") for name in new_map if name not in old_map]
    changes += [Change("removed", f"tools: -{name}") for name in old_map if name not in new_map]
    for name, tool in new_map.items():
        if name in old_map and old_map[name] != tool:
            changes.append(_describe_change(f"tools[{name}]", old_map[name], tool))
    if not changes and list(old_map) != list(new_map):
        changes.append(Change("changed", "tools: order changed"))
    return changes


def _diff_system(old: Any, new: Any) -> list[Change]:
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        return [_describe_change(f"system[{i}]", a, b) for i, (a, b) in enumerate(zip(old, new)) if a != b]
    return [_describe_change("system", old, new)]


def diff_requests(old: dict[str, Any] | None, new: dict[str, Any]) -> list[Change]:
    """The changes from request body `old` to `new` (`old` None: the first request)."""
    if old is None:
        count = len(new.get("messages") or [])
        return [Change("same", f"first request of the session ({plural(count, 'message')})")]
    if old == new:
        return [Change("same", "identical to the previous request (a retry)")]
    changes: list[Change] = []
    for key in sorted(set(old) | set(new), key=lambda k: (k != "system", k != "tools", k)):
        if key == "messages" or old.get(key) == new.get(key):
            continue
        if key not in new:
            changes.append(Change("removed", f"{key}: removed (was {_short(old[key])})"))
        elif key not in old:
            changes.append(Change("added", f"{key}: added ({_short(new[key])})"))
        elif key == "system":
            changes += _diff_system(old[key], new[key])
        elif key == "tools" and isinstance(old[key], list) and isinstance(new[key], list):
            changes += _diff_tools(old[key], new[key])
        elif isinstance(old[key], (dict, list)) or isinstance(new[key], (dict, list)):
            changes.append(_describe_change(key, old[key], new[key]))
        else:
            changes.append(Change("changed", f"{key}: {_short(old[key])} → {_short(new[key])}"))
    changes += _diff_messages(list(old.get("messages") or []), list(new.get("messages") or []))
    if len(changes) == 1 and changes[0].kind == "appended":
        return [changes[0], Change("same", "nothing else changed")]
    return changes or [Change("same", "no changes")]
