"""Plain data behind the conversation pane and the tool panel.

Widgets come and go (old turns are pruned from the DOM); these records stay, so a pruned
turn can be re-created exactly as it was and the tool panel can redraw from them.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Literal

ToolState = Literal["preparing", "queued", "waiting", "running", "done", "error", "denied", "interrupted"]
BlockKind = Literal["user", "text", "thinking", "tool", "marker", "image"]

#: states after which a tool row no longer changes
FINAL_TOOL_STATES = frozenset({"done", "error", "denied", "interrupted"})
#: how many trailing lines of live Bash output a tool row keeps
OUTPUT_TAIL_LINES = 4


@dataclass
class ToolRecord:
    """One tool_use from the moment its block starts streaming until its result is in."""

    tool_use_id: str
    name: str
    label: str = ""
    batch: int = 0
    parallel: bool = False
    state: ToolState = "preparing"
    queued_at: float | None = None
    started_at: float | None = None
    finished_at: float | None = None
    duration_ms: int | None = None
    result_text: str = ""
    is_error: bool = False
    output_tail: deque[str] = field(default_factory=lambda: deque(maxlen=OUTPUT_TAIL_LINES))
    #: the hooks that ran around this call (tui.ui.hook_view.HookRecord)
    hooks: list[Any] = field(default_factory=list)
    _partial_line: str = ""
    #: an Agent call: the loop path of its subagent and the subagent's own tool calls, in order
    agent_path: str | None = None
    children: list[ToolRecord] = field(default_factory=list)
    #: an Agent call once finished: "3 tools · 4.1k tokens" (and the worktree branch, if any)
    agent_summary: str = ""
    #: what the Bash sandbox refused during this call (SandboxBlocked)
    sandbox_blocked: tuple[str, ...] = ()
    #: a language server's verdict on the file this edit changed: "2 errors (pylsp)" (DiagnosticsReported)
    diagnostics: str = ""
    #: the block is unfolded (the user opened it, or the app did for a tool whose result is the point)
    unfolded: bool = False

    @property
    def display_label(self) -> str:
        return self.label or f"{self.name}(…)"

    @property
    def is_final(self) -> bool:
        return self.state in FINAL_TOOL_STATES

    def elapsed_s(self, now: float | None = None) -> float | None:
        """Final duration when finished, live elapsed time while running, else None."""
        if self.duration_ms is not None:
            return self.duration_ms / 1000
        if self.started_at is not None:
            return max(0.0, (now if now is not None else time.time()) - self.started_at)
        return None

    def add_output(self, chunk: str) -> None:
        """Keep the last few complete lines of streamed output (plus the line being written)."""
        text = self._partial_line + chunk
        *lines, self._partial_line = text.split("\n")
        for line in lines:
            self.output_tail.append(line.rstrip("\r"))

    def tail_lines(self) -> list[str]:
        lines = list(self.output_tail)
        if self._partial_line:
            lines.append(self._partial_line)
        return lines[-1 if self.name.startswith("mcp__") else -OUTPUT_TAIL_LINES :]  # MCP: progress, the latest only


@dataclass
class BlockRecord:
    """One block of a turn: a user prompt, reply text, thinking, a tool call or a marker line."""

    kind: BlockKind
    text: str = ""
    #: marker flavour (stop, retry, error, warning, info, summary) or "" for other kinds
    tone: str = ""
    tool: ToolRecord | None = None
    done: bool = False
    #: an image sent with the prompt: TurnStarted.images' entry plus its `number` in the prompt
    image: dict[str, Any] | None = None


@dataclass
class TurnRecord:
    """Everything shown for one user prompt, in order."""

    number: int
    blocks: list[BlockRecord] = field(default_factory=list)

    def add(self, block: BlockRecord) -> BlockRecord:
        self.blocks.append(block)
        return block


def image_records(images: Any) -> list[BlockRecord]:
    """One finished `image` block per picture of a prompt (TurnStarted.images entries), numbered from 1."""
    return [
        BlockRecord("image", done=True, image={**entry, "number": number})
        for number, entry in enumerate(images or (), 1)
    ]
