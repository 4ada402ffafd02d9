"""Loop boundaries: no progress, turn limits and the token budget.

No progress means the model keeps asking for the same thing: the same tool with the same
input again and again, or a short cycle (A, B, A, B). The first repetitions get a warning
appended to the tool result; at the stop threshold the loop ends.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any


class LoopStop(Exception):
    """Control flow that leaves the loop; carries the LoopStopped reason and detail."""

    def __init__(self, reason: str, detail: str, *, is_error: bool = False) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail
        self.is_error = is_error


def call_key(name: str, tool_input: Any) -> str:
    """A canonical signature of one tool call."""
    try:
        return name + ":" + json.dumps(tool_input, sort_keys=True, separators=(",", ":"))
    except (TypeError, ValueError):
        return name + ":" + repr(tool_input)


@dataclass
class ProgressGuard:
    """Counts repeated calls and repeated cycles within one turn."""

    warn_at: int = 3
    stop_at: int = 5
    counts: dict[str, int] = field(default_factory=dict)
    history: list[str] = field(default_factory=list)  # one signature per iteration

    def record_iteration(self, calls: list[tuple[str, Any]]) -> tuple[dict[int, str], str | None]:
        """Record one response's calls; return per-call warnings and a stop detail (or None)."""
        warnings: dict[int, str] = {}
        worst = 0
        for i, (name, tool_input) in enumerate(calls):
            key = call_key(name, tool_input)
            n = self.counts.get(key, 0) + 1
            self.counts[key] = n
            worst = max(worst, n)
            if n >= self.warn_at:
                warnings[i] = (
                    f"Warning: this is call number {n} of {name} with exactly the same input in this turn. "
                    "Its result will not change; use what you already have or try a different approach."
                )
        self.history.append("|".join(call_key(n, i) for n, i in calls))
        if worst >= self.stop_at:
            return warnings, f"The model called the same tool with the same input {worst} times."
        cycle = self._cycle_repeats()
        if cycle >= self.stop_at - 1:
            return warnings, f"The model repeated the same cycle of tool calls {cycle} times."
        return warnings, None

    def _cycle_repeats(self) -> int:
        """How many times the newest period-2 or period-3 cycle repeated back to back."""
        best = 0
        h = self.history
        for period in (2, 3):
            if len(h) < period * 2:
                continue
            unit = h[-period:]
            if len(set(unit)) < 2:
                continue
            reps = 1
            while len(h) >= period * (reps + 1) and h[-period * (reps + 1) : -period * reps] == unit:
                reps += 1
            best = max(best, reps)
        return best
