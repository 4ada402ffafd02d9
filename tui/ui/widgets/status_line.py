"""The status line: model, permission mode, what the agent is doing and for how long, usage, cost."""

from __future__ import annotations

import time

from textual.content import Content
from textual.reactive import reactive
from textual.timer import Timer
from textual.widgets import Static

#: states that tick a live elapsed time
BUSY_STATES = ("starting", "waiting for model", "streaming", "thinking", "running", "waiting for approval")


def human_tokens(n: int) -> str:
    if n < 1000:
        return str(n)
    if n < 100_000:
        return f"{n / 1000:.1f}k"
    return f"{n / 1000:.0f}k"


class StatusLine(Static):
    """One line at the bottom; the event controller sets its reactives."""

    model: reactive[str] = reactive("")
    mode: reactive[str] = reactive("default")
    state: reactive[str] = reactive("idle")
    detail: reactive[str] = reactive("")
    usage: reactive[dict] = reactive(dict, always_update=True)
    cost_usd: reactive[float] = reactive(0.0)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self.state_since = time.monotonic()
        self.clock = time.monotonic
        self._timer: Timer | None = None

    def set_state(self, state: str, detail: str = "") -> None:
        """Change what the agent is doing; the elapsed time restarts on each change."""
        if state != self.state:
            self.state_since = self.clock()
        self.detail = detail
        self.state = state

    def watch_state(self, state: str) -> None:
        busy = state in BUSY_STATES
        if busy and self._timer is None:
            self._timer = self.set_interval(0.1, self._tick)
        elif not busy and self._timer is not None:
            self._timer.stop()
            self._timer = None
        self.set_class(busy, "-busy")
        self.set_class(state == "waiting for approval", "-attention")

    def _tick(self) -> None:
        self.refresh()

    def render(self) -> Content:
        state = self.state
        if self.detail:
            state = f"{state} {self.detail}"
        if self.state in BUSY_STATES:
            state += f" · {self.clock() - self.state_since:.1f} s"
        u = self.usage or {}
        fresh_in = u.get("input_tokens", 0)
        cache_read = u.get("cache_read_input_tokens", 0)
        cache_write = u.get("cache_creation_input_tokens", 0)
        total_in = fresh_in + cache_read + cache_write
        share = f"{cache_read / total_in:.0%}" if total_in else "–"
        mode_colour = {"default": "$text-muted", "acceptEdits": "$success", "plan": "$accent",
                       "bypassPermissions": "$error"}.get(self.mode, "$text-muted")
        return Content.assemble(
            Content.from_markup("[b]$m[/b]", m=self.model),
            Content.from_markup(f"  [dim]mode[/dim] [{mode_colour}]$mode[/]", mode=self.mode),
            Content.from_markup("  [$accent]$s[/]" if self.state != "idle" else "  [dim]$s[/dim]", s=state),
            Content.from_markup(
                "  [dim]│[/dim] $i in / $o out  [dim]cache[/dim] $c  [dim]│[/dim] $$$cost",
                i=human_tokens(total_in), o=human_tokens(u.get("output_tokens", 0)), c=share,
                cost=f"{self.cost_usd:.4f}",
            ),
        )
