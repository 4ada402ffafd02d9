"""The status line: model, permission mode, what the agent is doing and for how long, usage, cost."""

from __future__ import annotations

import time
from typing import Any

from rich.cells import cell_len
from textual.content import Content
from textual.geometry import Region
from textual.reactive import reactive
from textual.timer import Timer
from textual.widgets import Static

from tui.text.sanitize import one_line
from tui.text.wording import plural

from .one_line import OneLineRender

#: states that tick a live elapsed time
#: where the state's piece goes among the cached parts (swapped on every tick of the clock)
STATE_SLOT: tuple[int, Content] = (0, Content("\x00state"))
BUSY_STATES = (
    "starting",
    "waiting for model",
    "streaming",
    "thinking",
    "running",
    "waiting for approval",
    "compacting",
)


def human_tokens(n: int) -> str:
    if n < 1000:
        return str(n)
    if n < 100_000:
        return f"{n / 1000:.1f}k"
    return f"{n / 1000:.0f}k"


class StatusLine(OneLineRender, Static):
    """One line at the bottom; the event controller sets its reactives."""

    model: reactive[str] = reactive("")
    mode: reactive[str] = reactive("default")
    state: reactive[str] = reactive("idle")
    detail: reactive[str] = reactive("")
    usage: reactive[dict] = reactive(dict, always_update=True)
    cost_usd: reactive[float] = reactive(0.0)
    #: the last request's context use (ContextUsage); window 0 = not known yet
    context_used: reactive[int] = reactive(0)
    context_window: reactive[int] = reactive(0)
    context_estimated: reactive[bool] = reactive(False)
    #: background tasks still running (BackgroundShellChanged)
    background: reactive[int] = reactive(0)
    #: the first line of the `statusLine` command's output (status_command.py), already made one-line safe
    custom: reactive[str] = reactive("")
    #: thinking as the user chose it (Tab, /think; None: the model's default, not shown) and /effort's level
    thinking_choice: reactive[bool | None] = reactive(None)
    effort: reactive[str | None] = reactive(None)
    #: the model id the session sends (`model` is what the line shows: "offline demo" while offline answers)
    model_id: reactive[str] = reactive("")
    #: the prompt's vi mode ("insert", "normal"; "" without /vim)
    vi_mode: reactive[str] = reactive("")
    #: errors the language servers last reported in the files edited this session (DiagnosticsReported)
    lsp_errors: reactive[int] = reactive(0)
    #: a language server that failed or exited (LspProblem): its name, shown until /lsp is opened
    lsp_problem: reactive[str] = reactive("")

    def set_context(self, used: int, window: int, estimated: bool) -> None:
        self.context_used, self.context_window, self.context_estimated = used, window, estimated

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self.state_since = time.monotonic()
        self.clock = time.monotonic
        self._timer: Timer | None = None
        #: (inputs, parts) of the last `parts()`: the clock's ticks change only the elapsed time
        self._parts_cache: tuple[Any, list[tuple[int, Content]]] | None = None
        #: the text last drawn (a tick repaints only the cells that differ from it)
        self._shown: str | None = None

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
        """Repaint the cells the clock changed (the elapsed time), not the whole line."""
        shown, line = self._shown, self._line().plain
        if shown is None or len(shown) != len(line) or cell_len(line) != len(line):
            self.refresh()
            return
        changed = [i for i, (a, b) in enumerate(zip(shown, line)) if a != b]
        if changed:
            self.refresh(Region(changed[0], 0, changed[-1] - changed[0] + 1, 1))

    def _line(self) -> Content:
        return fit_parts(self.parts(), self.content_size.width or 10_000)

    def render(self) -> Content:
        line = self._line()
        self._shown = line.plain
        return line

    def parts(self) -> list[tuple[int, Content]]:
        """(priority, piece) in display order; 0 is never dropped, higher numbers go first.

        Built once per change of what they show; a tick of the clock only swaps the state's piece.
        """
        state = self.state
        if self.detail:
            state = f"{state} {one_line(self.detail)}"
        if self.state in BUSY_STATES:
            state += f" · {self.clock() - self.state_since:.1f} s"
        state_part = Content.assemble("  ", (state, "$accent" if self.state != "idle" else "dim"))
        u = self.usage or {}
        key = (
            self.model,
            self.model_id,
            self.mode,
            self.vi_mode,
            self.thinking_choice,
            self.effort,
            self.background,
            self.lsp_errors,
            self.lsp_problem,
            self.custom,
            self.context_used,
            self.context_window,
            self.context_estimated,
            tuple(sorted(u.items())),
            self.cost_usd,
        )
        if self._parts_cache is None or self._parts_cache[0] != key:
            self._parts_cache = (key, self._other_parts(u))
        parts = list(self._parts_cache[1])
        parts[parts.index(STATE_SLOT)] = (0, state_part)
        return parts

    def _other_parts(self, u: dict[str, Any]) -> list[tuple[int, Content]]:
        """Every piece but the state's (STATE_SLOT holds its place)."""
        fresh_in = u.get("input_tokens", 0)
        cache_read = u.get("cache_read_input_tokens", 0)
        cache_write = u.get("cache_creation_input_tokens", 0)
        total_in = fresh_in + cache_read + cache_write
        share = f"{cache_read / total_in:.0%}" if total_in else "–"
        mode_colour = {
            "default": "$text-muted",
            "acceptEdits": "$success",
            "plan": "$accent",
            "bypassPermissions": "$error",
        }.get(self.mode, "$text-muted")
        parts = [
            (0, Content.from_markup("[b]$m[/b]", m=one_line(self.model))),
            (1, Content.from_markup(f"  [dim]mode[/dim] [{mode_colour}]$mode[/]", mode=self.mode)),
            STATE_SLOT,
        ]
        if self.vi_mode:
            parts.insert(
                0,
                (
                    1,
                    Content.from_markup(
                        "[reverse] $m [/reverse] " if self.vi_mode == "normal" else "[dim]$m[/dim] ",
                        m=self.vi_mode.upper(),
                    ),
                ),
            )
        if choices := self._thinking_part():
            parts.insert(-1, (2, choices))
        if self.background:
            parts.append(
                (
                    1,
                    Content.from_markup(
                        "  [dim]│[/dim] [$warning]$n[/] [dim]· /tasks[/dim]",
                        n=plural(self.background, "background task"),
                    ),
                )
            )
        if self.lsp_errors:
            parts.append(
                (
                    1,
                    Content.from_markup(
                        "  [dim]│[/dim] [$error]$n[/] [dim]· /lsp[/dim]", n=plural(self.lsp_errors, "error")
                    ),
                )
            )
        if self.lsp_problem:
            parts.append(
                (2, Content.from_markup("  [dim]│[/dim] [$warning]$p stopped[/] [dim]· /lsp[/dim]", p=self.lsp_problem))
            )
        if self.custom:
            parts.append((2, Content("  │ ") + Content(self.custom)))
        if self.context_window:
            parts.append((2, self._context_part()))
        parts += [
            (
                3,
                Content.from_markup(
                    "  [dim]│[/dim] $i in / $o out", i=human_tokens(total_in), o=human_tokens(u.get("output_tokens", 0))
                ),
            ),
            (4, Content.from_markup("  [dim]cache[/dim] $c", c=share)),
            *(
                [
                    (
                        4,
                        Content.from_markup(
                            "  [dim]·[/dim] $n", n=plural(u["web_search_requests"], "search", "searches")
                        ),
                    )
                ]
                if u.get("web_search_requests")
                else []
            ),
            (1, Content.from_markup("  [dim]│[/dim] $$$cost", cost=f"{self.cost_usd:.4f}")),
        ]
        return parts

    def _thinking_part(self) -> Content | None:
        """`thinking on` / `thinking off` once the user chose, and the effort where the model takes it."""
        if self.thinking_choice is None and not self.effort:  # nothing to show: spare the import (~10 ms at start)
            return None
        from tui.agent.api.thinking import model_thinking, thinking_on

        model = self.model_id or self.model
        support = model_thinking(model)
        words = []
        if self.thinking_choice is not None and support.has_thinking:
            words.append(
                "[$accent]thinking on[/]" if thinking_on(model, self.thinking_choice) else "[dim]thinking off[/dim]"
            )
        if self.effort and self.effort in support.efforts:
            words.append(f"[dim]effort[/dim] {self.effort}")
        return Content.from_markup("  " + " · ".join(words)) if words else None

    def _context_part(self) -> Content:
        share = self.context_used / self.context_window if self.context_window else 0.0
        colour = "$error" if share >= 0.9 else "$warning" if share >= 0.7 else "$text"
        approx = "~" if self.context_estimated else ""
        return Content.from_markup(
            f"  [dim]│ ctx[/dim] [{colour}]$p[/] [dim]of $w[/dim]",
            p="<1%" if 0 < share < 0.005 else f"{approx}{share:.0%}",
            w=human_window(self.context_window),
        )


def human_window(tokens: int) -> str:
    """A context window size as people say it: 200k, 1M."""
    if tokens >= 1_000_000 and tokens % 1_000_000 == 0:
        return f"{tokens // 1_000_000}M"
    if tokens >= 1_000_000:
        return f"{tokens / 1_000_000:.1f}M"
    return f"{tokens // 1000}k" if tokens >= 1000 else str(tokens)


def fit_parts(parts: list[tuple[int, Content]], width: int) -> Content:
    """Join the pieces, dropping the lowest-priority ones (highest number, rightmost first) until they fit."""
    kept = list(parts)
    while sum(p.cell_length for _, p in kept) > width:
        droppable = [i for i, (prio, _) in enumerate(kept) if prio > 0]
        if not droppable:
            break
        worst = max(droppable, key=lambda i: (kept[i][0], i))
        del kept[worst]
    return Content.assemble(*(p for _, p in kept))
