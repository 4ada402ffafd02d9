"""The base of every event: `Event` (timestamp, loop path, JSON form) and the `@_event` decorator."""

from __future__ import annotations

import time
from concurrent.futures import Future
from dataclasses import dataclass, field, fields
from typing import Any, TypeVar, dataclass_transform

_E = TypeVar("_E")


#: every event class: frozen, slotted, keyword-only. `repr` and `eq` come from `Event` instead of
#: being generated per class: dataclass compiles each generated method, and 25 classes × 6 methods
#: made this module ~20 ms of every start-up; with 3 per class it is about half.
@dataclass_transform(frozen_default=True, kw_only_default=True)
def _event(cls: type[_E]) -> type[_E]:
    return dataclass(frozen=True, slots=True, kw_only=True, repr=False, eq=False)(cls)


@_event
class Event:
    """Base of every event: a wall-clock timestamp, the loop path that emitted it and a JSON form.

    `loop_path` is `main` for the top loop and `main/<alias>` (deeper: `main/<a>/<b>`) for a subagent's;
    a subagent session stamps it on the events it publishes (tui/agent/subagents.py).
    """

    ts: float = field(default_factory=time.time)
    loop_path: str = "main"

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, f.name) for f in fields(self))

    def __repr__(self) -> str:
        inner = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in fields(self))
        return f"{type(self).__name__}({inner})"

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash((type(self), self._values()))

    @property
    def type(self) -> str:
        return type(self).__name__

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable form (futures and other live objects are left out)."""
        out: dict[str, Any] = {"type": self.type}
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, Future) or f.name.startswith("_"):
                continue
            out[f.name] = value
        return out
