"""A reply being streamed: tokens are buffered and written once per frame, and only the tail is live.

A Textual `Markdown` gets slower with every block it holds (each append re-splits its source and
every mount restyles), so a long reply streamed into one widget slows down superlinearly: 20,000
tokens never finished. Here the live `Markdown` only ever holds the last few KB: when it grows past
`TAIL_CHARS`, its completed head (up to a blank line outside code fences) is frozen into a cheap
`Static(rich Markdown)` above it and the live widget restarts with the remainder.

A huge reply (a 5 MB delta, or megabytes in many deltas) would still cost seconds of Markdown
rendering and thousands of widgets, so a head bigger than `MARKDOWN_HEAD_CHARS`, and everything
past `MARKDOWN_REPLY_CHARS`, goes into one plain `LongText` that draws only its visible rows; the
last part of the reply is still Markdown. All text is shown through `tui.text.sanitize.visible`.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable
from typing import Any

from textual.widget import Widget
from textual.widgets import Markdown

from tui.text.sanitize import visible

from .blocks import frozen_markdown
from .conversation_model import BlockRecord
from .long_text import LongText

#: the live Markdown's source is split once it is longer than this
TAIL_CHARS = 2500
#: buffered text is written to the screen at most this often (seconds): each write scrolls the view and
#: rewrites every row of it to the terminal (~5 KB at 120x40), so ten a second, as Claude Code draws
FLUSH_S = 0.1
#: ...and never more often than this many times the last write took (the frame after it costs
#: about as much again), so a reply streamed faster than the screen can follow gets fewer, larger
#: writes instead of starving the thread that receives it (the UI and the loop share the GIL)
PACE = 6
#: the longest wait between writes, however slow they get
MAX_FLUSH_S = 0.25
#: text arriving faster than this (characters a second; Claude streams ~300-600) is far faster
#: than anyone reads: then the screen is written every MAX_FLUSH_S, leaving the CPU to the stream
FAST_CHARS_PER_S = 6000
#: text arriving faster still (~7,500 tokens a second: no model streams that fast, a replay or a
#: benchmark can) is written every VERY_FAST_FLUSH_S: each write costs a layout and a repaint
VERY_FAST_CHARS_PER_S = 30000
VERY_FAST_FLUSH_S = 0.5
#: a head frozen in one go that is longer than this is shown plain: as Markdown it would take a frame
#: of ~70 ms or more (Rich renders ~1.5 ms per KB here); a replay at 40 KB/s freezes ~20 KB heads
MARKDOWN_HEAD_CHARS = 48_000
#: characters of a reply frozen as Markdown before the rest of its head is shown plain
MARKDOWN_REPLY_CHARS = 200_000
#: a tail longer than this is searched for a cut only near its end
HUGE_TAIL_CHARS = 8 * TAIL_CHARS

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
#: a newline followed by a fence line (a literal first character keeps the scan fast)
_FENCE_AFTER_NEWLINE = re.compile(r"\n {0,3}(?:```|~~~)")


def split_point(text: str, fence: str | None = None) -> int:
    """Where `text` can be cut into two Markdown documents that render as one: 0 when nowhere.

    The cut is after the last blank line outside a code fence that is followed by a line
    starting in column 0 (so it is not inside a list item or an indented block). `fence` is
    the code fence open at the start of `text`, if any.
    """
    best = 0
    pos = 0
    after_blank = False
    for line in text.splitlines(keepends=True):
        if after_blank and fence is None and line[:1] not in (" ", "\t", "\n", "\r") and line.strip():
            best = pos
        match = _FENCE.match(line)
        if fence is None:
            if match:
                fence = match.group(1)
            after_blank = not line.strip()
        else:
            if (
                match
                and match.group(1)[0] == fence[0]
                and len(match.group(1)) >= len(fence)
                and not line.strip()[len(match.group(1)) :].strip()
            ):
                fence = None
            after_blank = False
        pos += len(line)
    return best


def open_fence(text: str, end: int) -> str | None:
    """The code fence still open at `end` of `text` (a fast scan for fence lines, not line by line)."""
    fence: str | None = None
    starts = [m.start() + 1 for m in _FENCE_AFTER_NEWLINE.finditer(text, 0, end)]
    for start in ([0] if _FENCE.match(text) else []) + starts:
        stop = text.find("\n", start, end)
        line = text[start : stop if stop >= 0 else end]
        marker = _FENCE.match(line).group(1)  # type: ignore[union-attr]
        if fence is None:
            fence = marker
        elif marker[0] == fence[0] and len(marker) >= len(fence) and not line.strip()[len(marker) :].strip():
            fence = None
    return fence


def cut_point(text: str, keep: int = TAIL_CHARS) -> int:
    """`split_point(text)`, bounded for a huge text: only its last part is searched, and when no
    safe cut is there it is cut at a line start anyway so that about `keep` characters stay live."""
    if len(text) <= HUGE_TAIL_CHARS:
        return split_point(text)
    start = text.rfind("\n", 0, len(text) - 4 * keep) + 1
    cut = split_point(text[start:], open_fence(text, start))
    if cut:
        return start + cut
    newline = text.rfind("\n", 0, len(text) - keep)
    return newline + 1 if newline >= 0 else len(text) - keep


def reply_widgets(text: str) -> list[Widget]:
    """A finished reply as widgets: frozen Markdown chunks, a huge one's head as plain `LongText`."""
    if len(text) <= MARKDOWN_REPLY_CHARS:
        return frozen_chunks(text)
    cut = cut_point(text)
    return [LongText(text[:cut]), *frozen_chunks(text[cut:])]


def frozen_chunks(text: str, chunk_chars: int = TAIL_CHARS) -> list[Widget]:
    """A finished reply as frozen Statics of about `chunk_chars` each (cheap to re-render and resize)."""
    chunks: list[Widget] = []
    rest = text
    while len(rest) > 2 * chunk_chars:
        cut = split_point(rest[: 2 * chunk_chars])
        if not cut:
            break
        chunks.append(frozen_markdown(rest[:cut].rstrip("\n")))
        rest = rest[cut:]
    if rest.strip() or not chunks:
        chunks.append(frozen_markdown(rest.strip("\n")))
    return chunks


class LiveReply(Markdown):
    """The live tail of the reply being streamed (see `reply_stream.ReplyStream`, which feeds it)."""

    def __init__(self) -> None:
        super().__init__("", classes="assistant-text live")
        self.stream: Any = None

    async def close(self) -> None:
        """Stop the stream's flush timer so nothing touches a pruned widget."""
        if self.stream is not None:
            self.stream.cancel()


class ReplyStream:
    """Feeds one streaming text block into a turn: frozen head chunks plus a small live tail."""

    def __init__(
        self,
        record: BlockRecord,
        live: LiveReply,
        *,
        on_flush: Callable[[], None] | None = None,
        tail_chars: int = TAIL_CHARS,
        flush_s: float = FLUSH_S,
    ) -> None:
        self.record = record
        self.live = live
        self.on_flush = on_flush
        self.tail_chars = tail_chars
        self.flush_s = flush_s
        #: text not yet written to the live widget
        self._pending: list[str] = []
        #: source of the live widget (everything after the frozen chunks)
        self._tail = ""
        #: characters of `record.text` already frozen into chunks
        self._frozen_len = 0
        self._timer: Any = None
        self._last_cost = 0.0
        self._last_flush = time.perf_counter()
        self._fast = False
        self._very_fast = False
        self._lock = asyncio.Lock()
        #: set when `finish` begins: a flush that starts after that must not wait for its lock (see `flush`)
        self._ending = False
        self.finished = False
        self.chunks: list[Widget] = []
        #: the plain head of a huge reply (see the module docstring), once there is one
        self.plain: LongText | None = None

    def feed(self, text: str) -> None:
        """Take a delta; it reaches the screen with the next flush (at most `flush_s` later)."""
        self.record.text += text
        self._pending.append(text)
        if self._timer is None and not self.finished:
            if self._fast:
                delay = VERY_FAST_FLUSH_S if self._very_fast else MAX_FLUSH_S
            else:
                delay = min(MAX_FLUSH_S, max(self.flush_s, PACE * self._last_cost))
            self._timer = self.live.set_timer(delay, self._timed_flush)

    async def _timed_flush(self) -> None:
        self._timer = None
        await self.flush()

    async def flush(self) -> None:
        """Write buffered text to the live widget; freeze its head when it grows too long.

        Runs on the live widget's timer. Stopping the timer does not take back a tick already posted to the
        widget: that flush, waiting here for the lock `finish` holds while `finish` waits for the widget to be
        removed (which waits for the widget's pending messages), held up both. Once the reply ends it is a no-op.
        """
        if self._ending:
            return
        started = time.perf_counter()
        async with self._lock:
            if self.finished or not self._pending or not self.live.is_attached:
                return
            text = "".join(self._pending)
            self._pending.clear()
            self._fast = len(text) > FAST_CHARS_PER_S * (started - self._last_flush)
            self._very_fast = len(text) > VERY_FAST_CHARS_PER_S * (started - self._last_flush)
            self._last_flush = started
            self._tail += text
            if len(self._tail) > self.tail_chars and (cut := cut_point(self._tail, self.tail_chars)):
                head, self._tail = self._tail[:cut], self._tail[cut:]
                with self.live.app.batch_update():
                    await self._freeze(head)
                    await self.live.update(visible(self._tail))
            else:
                with self.live.app.batch_update():
                    last = self.live.children[-1] if self.live.children else None
                    await self.live.append(visible(text))
                    if last is not None and last.is_attached and self.live.children[-1] is not last:
                        # no longer the last block: its `:last-child` margin goes now, not after a frame drawn
                        # without the blank line (the next frame would move every row below it on the terminal)
                        last.update_node_styles(animate=False)
        self._last_cost = time.perf_counter() - started
        if self.on_flush is not None:
            self.on_flush()

    def _plain_for(self, head_chars: int) -> bool:
        """Whether a head of this size, frozen next, is shown plain rather than as Markdown."""
        return (
            self.plain is not None
            or head_chars > MARKDOWN_HEAD_CHARS
            or self._frozen_len + head_chars > MARKDOWN_REPLY_CHARS
        )

    async def _freeze(self, head: str) -> None:
        """Show `head` (the text just above the live tail) frozen: as Markdown, or plain when huge."""
        plain = self._plain_for(len(head))
        self._frozen_len += len(head)
        if not plain:
            chunk: Widget = frozen_markdown(head.rstrip("\n"))
        elif self.plain is None:
            chunk = self.plain = LongText(head)
        else:
            self.plain.append(head)
            return
        self.chunks.append(chunk)
        await self.live.parent.mount(chunk, before=self.live)  # type: ignore[union-attr]

    def cancel(self) -> None:
        """Stop the flush timer (the widget is going away)."""
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    async def finish(self, final_text: str | None = None) -> None:
        """Replace the live tail with its frozen form; `final_text` is the block's complete text."""
        self._ending = True
        self.cancel()
        async with self._lock:
            if self.finished:
                return
            self.finished = True
            self._pending.clear()
            if final_text is not None:
                if not final_text.startswith(self.record.text[: self._frozen_len]):
                    self._frozen_len = 0  # not what was streamed (cannot happen normally): redo it all
                self.record.text = final_text  # the engine's assembled block is the truth
            text = self.record.text
            live = self.live
            if not live.is_attached:
                return
            with live.app.batch_update():
                if self._frozen_len == 0 and self.chunks:
                    await live.parent.remove_children(self.chunks)  # type: ignore[union-attr]
                    self.chunks.clear()
                    self.plain = None
                tail = text[self._frozen_len :]
                # e.g. one huge delta that never reached a flush
                if len(tail) > HUGE_TAIL_CHARS and self._plain_for(cut := cut_point(tail, self.tail_chars)):
                    await self._freeze(tail[:cut])
                    tail = tail[cut:]
                if tail.strip() or not self.chunks:
                    await live.parent.mount_all(frozen_chunks(tail), after=live)  # type: ignore[union-attr]
                await live.remove()
        if self.on_flush is not None:
            self.on_flush()
