"""The conversation pane: a bottom-anchored scroll of turns with a bounded widget count.

Every turn's data lives in `turns` (a list of TurnRecord). At most `max_mounted` turns are
widgets at any time; older ones are removed from the DOM and re-created from their
records when the user scrolls to the top. That keeps each new mount and each restyle
cheap however long the session gets (Textual's cost grows with live widgets).

Reading old turns: while fewer than PREFETCH_PAGES screens of turns are left above (or below)
the viewport, the next few turns are re-created ahead of it and as many far-off ones removed, so
scrolling up through a long history never reaches the top of what is mounted. Whatever is
inserted or removed, the turn the user is looking at keeps its place on the screen in the same
frame (`arrange` below moves the scroll offset between layout and paint, as Textual does for its
bottom anchor), so nothing jumps.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from textual.containers import Vertical, VerticalScroll
from textual.geometry import Region, Size
from textual.message import Message
from textual.scrollbar import ScrollBar
from textual.widget import Widget
from textual.widgets import Static

from .. import gc_tuning

if TYPE_CHECKING:
    from .conversation_model import TurnRecord

MAX_MOUNTED_TURNS = 40
#: most turns re-created in one go when the user reads old turns
RESTORE_BATCH = 4
#: turns kept mounted while reading old turns (the rest are re-created as the viewport nears them)
BROWSE_MOUNTED_TURNS = 10
#: re-create turns while fewer than this many screens of them are left above/below the viewport
PREFETCH_PAGES = 2
#: turns mounted when a history is loaded (older ones load as the user scrolls up)
HISTORY_TAIL_TURNS = 10
#: while following the bottom, turns wholly more than this many screens up are unmounted (re-created on scroll)
KEEP_SCREENS = PREFETCH_PAGES + 2
#: ...but never fewer turns than this
MIN_MOUNTED_TURNS = 3
#: a re-created turn's text blocks (LinesWidget, Static) are drawn off screen before they scroll into view
#: (see `Conversation._warm`) when no taller than this many rows
WARM_ROWS = 400


class TurnView(Vertical):
    """The widgets of one turn; re-creatable from its record."""

    def __init__(self, record: TurnRecord, *, rebuild: bool = False) -> None:
        super().__init__(classes="turn")
        self.record = record
        self._rebuild = rebuild
        #: its blocks were drawn off screen once laid out (`Conversation._warm`)
        self.drawn = False

    def compose(self):
        if self._rebuild:
            from .blocks import compose_blocks  # the blocks are not imported before the first turn

            yield from compose_blocks(self.record.blocks)


class Conversation(VerticalScroll, can_focus=True):
    """All turns of the session; follows the bottom until the user scrolls up."""

    class FollowChanged(Message):
        """Posted when following the bottom starts or stops (drives the "new output" bar)."""

        def __init__(self, following: bool, unseen: bool) -> None:
            super().__init__()
            self.following = following
            self.unseen = unseen

    def __init__(self, *, max_mounted: int = MAX_MOUNTED_TURNS, id: str | None = None) -> None:
        super().__init__(id=id)
        self.turns: list[TurnRecord] = []
        self.max_mounted = max_mounted
        self._first_mounted = 0  # index in `turns` of the oldest mounted turn
        self._hidden_below = 0  # turns after the newest mounted one (unmounted while reading old turns)
        self._earlier = Static("", id="earlier-turns", classes="marker -info")
        self._unseen = False
        self._restoring = False
        #: (view, rows from the viewport top) to hold in place across the next layout, see `arrange`
        self._keep: tuple[Widget, int] | None = None
        self._prefetching = False

    def on_mount(self) -> None:
        self.mount(self._earlier)
        self._earlier.display = False
        self.anchor()

    # --- turns ------------------------------------------------------------------------

    @property
    def mounted_views(self) -> list[TurnView]:
        return list(self.query_children(TurnView))

    async def start_turn(self, record: TurnRecord) -> TurnView:
        """Append a turn, mount its (empty) view and prune the oldest views."""
        if self._hidden_below:
            await self._remount_tail()
        self.turns.append(record)
        view = TurnView(record)
        await self.mount(view)
        await self._prune()
        return view

    async def load_history(self, records: list[TurnRecord], *, tail: int = HISTORY_TAIL_TURNS) -> None:
        """Show a resumed history: the last `tail` turns mounted, older ones re-created on scroll up."""
        await self.clear_turns()
        if not records:
            return
        shown = records[-max(1, min(tail, self.max_mounted)) :]
        self.turns.extend(records)
        self._first_mounted = len(records) - len(shown)
        self._hidden_below = 0
        with self.app.batch_update():
            await self.mount_all([TurnView(r, rebuild=True) for r in shown])
            self._sync_earlier()
        self.jump_to_bottom()

    async def clear_turns(self) -> None:
        self._keep = None
        self.turns.clear()
        self._first_mounted = 0
        self._hidden_below = 0
        await self.query_children(TurnView).remove()
        self._sync_earlier()
        self.anchor()

    async def _prune(self) -> None:
        views = self.mounted_views
        excess = max(len(views) - self.max_mounted, self._excess_by_height(views))
        if excess <= 0:
            return
        for view in views[:excess]:
            await _close_live(view)
        await self.remove_children(views[:excess])
        self._first_mounted = self.turns.index(views[excess].record)
        self._sync_earlier()

    def _excess_by_height(self, views: list[TurnView]) -> int:
        """While following the bottom: how many of the oldest views lie wholly beyond KEEP_SCREENS screens up.

        Every layout walks every mounted widget, so a few turns with dozens of tool calls each cost as much
        as many short ones; the turns far above the viewport are re-created when the user scrolls to them.
        """
        if not self.following or len(views) <= MIN_MOUNTED_TURNS:
            return 0
        keep = KEEP_SCREENS * max(1, self.scrollable_content_region.height)
        rows = 0
        for kept, view in enumerate(reversed(views)):
            if rows >= keep and kept >= MIN_MOUNTED_TURNS:
                return len(views) - kept
            rows += view.outer_size.height + 1
        return 0

    def _sync_earlier(self) -> None:
        hidden = self._first_mounted
        self._earlier.display = hidden > 0
        if hidden:
            noun = "turn" if hidden == 1 else "turns"
            self._earlier.update(f"↑ {hidden} earlier {noun} · scroll to the top to load them")

    @property
    def browse_cap(self) -> int:
        """How many turns stay mounted while the user reads old turns."""
        return min(self.max_mounted, BROWSE_MOUNTED_TURNS)

    def _hold(self, view: Widget) -> None:
        """Keep `view` where it is on the screen through the coming layout (turns added/removed around it)."""
        self._keep = (view, view.virtual_region.y - round(self.scroll_y))

    def _release_hold(self) -> None:
        self._keep = None

    def arrange(self, size: Size, optimal: bool = False):
        """Textual's arrangement; then move the scroll offset so a held turn stays put (before paint)."""
        arrangement = super().arrange(size, optimal)
        if self._keep is not None:
            view, offset = self._keep
            for placement in arrangement.placements:
                if placement.widget is view:
                    bottom = arrangement.total_region.bottom
                    limit = max(0, bottom - (self.container_size.height - self.scrollbar_size_horizontal))
                    y = min(limit, max(0, placement.region.y - offset))
                    self.set_reactive(Widget.scroll_y, y)
                    self.set_reactive(Widget.scroll_target_y, y)
                    if self._vertical_scrollbar is not None:
                        self._vertical_scrollbar.set_reactive(ScrollBar.position, y)
                    break
        return arrangement

    def _turns_needed(self, rows: float) -> int:
        """About how many turns fill `rows` rows (from the mounted turns' mean height)."""
        views = self.query_children(TurnView)
        mean = max(1.0, sum(v.outer_size.height + 1 for v in views) / max(1, len(views)))
        return max(1, min(RESTORE_BATCH, math.ceil(rows / mean)))

    async def restore_earlier(self, count: int = RESTORE_BATCH) -> int:
        """Re-create up to `count` pruned turns above the first mounted one (what is on screen stays put)."""
        if self._first_mounted == 0 or self._restoring:
            return 0
        self._restoring = True
        try:
            start = max(0, self._first_mounted - count)
            records = self.turns[start : self._first_mounted]
            views = [TurnView(r, rebuild=True) for r in records]
            mounted = self.mounted_views
            if mounted:
                self._hold(mounted[0])
            with self.app.batch_update():
                await self.mount_all(views, after=self._earlier)
                self._first_mounted = start
                self._sync_earlier()
                await self._drop_below()
            self.call_after_refresh(self._release_hold)
            return len(views)
        finally:
            self._restoring = False

    async def _drop_below(self) -> None:
        """Unmount the newest views beyond the browsing cap that are well below the viewport."""
        mounted = self.mounted_views
        excess = len(mounted) - self.browse_cap
        if excess <= 0:
            return
        limit = self.scroll_y + (PREFETCH_PAGES + 1) * max(1, self.scrollable_content_region.height)
        drop = [v for v in mounted[-excess:] if v.virtual_region.y > limit]
        if len(mounted) - len(drop) > self.max_mounted:  # the hard cap holds whatever the positions
            drop = mounted[-excess:]
        while drop and drop[0] is not mounted[len(mounted) - len(drop)]:
            drop.pop(0)  # only a contiguous tail can go (turns stay in order)
        if not drop:
            return
        for view in drop:
            await _close_live(view)
        await self.remove_children(drop)
        self._hidden_below += len(drop)

    async def restore_later(self, count: int = RESTORE_BATCH) -> int:
        """Re-create up to `count` turns below the newest mounted one (dropped while reading old turns)."""
        if not self._hidden_below or self._restoring:
            return 0
        self._restoring = True
        try:
            end = len(self.turns) - self._hidden_below
            records = self.turns[end : end + count]
            views = [TurnView(r, rebuild=True) for r in records]
            with self.app.batch_update():
                await self.mount_all(views)
                self._hidden_below -= len(records)
                mounted = self.mounted_views
                excess = len(mounted) - self.browse_cap
                top = self.scroll_y - PREFETCH_PAGES * max(1, self.scrollable_content_region.height)
                drop = [v for v in mounted[: max(0, excess)] if v.virtual_region.bottom < top]
                if len(mounted) - len(drop) > self.max_mounted:
                    drop = mounted[:excess]
                if drop:  # drop as many far above, keeping what the user reads in place
                    self._hold(mounted[len(drop)])
                    await self.remove_children(drop)
                    self._first_mounted += len(drop)
                    self._sync_earlier()
            self.call_after_refresh(self._release_hold)
            return len(records)
        finally:
            self._restoring = False

    async def _prefetch(self) -> None:
        """Re-create turns until PREFETCH_PAGES screens are mounted on the side the user scrolls to."""
        self._warm()  # the turns mounted before (a resumed history's tail) that were never on screen
        for _ in range(50):
            page = max(1, self.scrollable_content_region.height)
            want = PREFETCH_PAGES * page
            if self._first_mounted and self.scroll_y < want:
                if not await self.restore_earlier(self._turns_needed(want - self.scroll_y)):
                    return
            elif self._hidden_below and self.max_scroll_y - self.scroll_y < want:
                if not await self.restore_later(self._turns_needed(want - (self.max_scroll_y - self.scroll_y))):
                    return
            else:
                return
            await self._layout_done()
            self._warm()

    def _warm(self) -> None:
        """Draw the re-created turns' blocks once, off screen, now that they are laid out.

        Their lines stay cached in each widget (Textual's styles cache, the frozen Markdown's strips), so
        the frame that scrolls them into view copies lines instead of rendering them (a first render of a
        block's text is most of the cost of a page's frame).
        """
        from .lines_widget import LinesWidget

        warmed = (LinesWidget, Static)
        for view in self.query_children(TurnView):
            if view.drawn:
                continue
            view.drawn = True
            for widget in view.walk_children(Widget, with_self=False):
                width, height = widget.outer_size
                # text blocks only: a huge reply's plain head draws just the rows shown, a picture is left alone
                if isinstance(widget, warmed) and 0 < height <= WARM_ROWS and width and widget.display:
                    widget.render_lines(Region(0, 0, width, height))

    async def _layout_done(self) -> None:
        """Wait until the screen has laid out (and drawn) the last change."""
        import asyncio

        done = asyncio.get_running_loop().create_future()

        def finish() -> None:
            if not done.done():
                done.set_result(None)

        self.call_after_refresh(finish)
        await done

    async def _remount_tail(self) -> None:
        """Back to the newest turns (a new turn starts, or the user jumps to the bottom)."""
        with self.app.batch_update():
            await self._remount(max(0, len(self.turns) - HISTORY_TAIL_TURNS), len(self.turns))
        self.anchor()

    # --- following the bottom ---------------------------------------------------------

    @property
    def following(self) -> bool:
        """True while anchored to the bottom (Textual releases the anchor when the user scrolls up)."""
        return self.is_anchored and not getattr(self, "_anchor_released", False)

    def content_added(self) -> None:
        """Note new output; if the user is reading older output, say that there is more below."""
        if not self.following and not self._unseen:
            self._unseen = True
            self.post_message(self.FollowChanged(False, True))

    def jump_to_bottom(self) -> None:
        if self._hidden_below:
            self.run_worker(self._remount_tail(), group="restore-turns", exclusive=True)
        self.anchor()
        self._set_seen()

    def page(self, direction: int) -> None:
        """Scroll one page up (-1) or down (1) at once, keeping one line of the last page in view."""
        rows = max(1, self.scrollable_content_region.height - 1)
        self.scroll_to(y=self.scroll_y + direction * rows, animate=False)

    def jump_to_top(self) -> None:
        """Show the first turn (the oldest turns are re-created if they were pruned)."""
        if self._first_mounted:
            self.run_worker(self._remount_head(), group="restore-turns", exclusive=True)
        else:
            self.scroll_home(animate=False)

    async def _remount_head(self) -> None:
        self.release_anchor()
        with self.app.batch_update():
            await self._remount(0, min(len(self.turns), HISTORY_TAIL_TURNS))
            self.scroll_to(y=0, animate=False, immediate=True)

    async def _remount(self, start: int, end: int) -> None:
        """Replace the mounted turns with turns[start:end] (inside the caller's batch_update)."""
        self._keep = None
        await self.query_children(TurnView).remove()
        self._first_mounted = start
        self._hidden_below = len(self.turns) - end
        await self.mount_all([TurnView(r, rebuild=True) for r in self.turns[start:end]])
        self._sync_earlier()

    def _set_seen(self) -> None:
        if self._unseen:
            self._unseen = False
            self.post_message(self.FollowChanged(True, False))

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if new_value >= self.max_scroll_y - 1:
            self._set_seen()
        if self._keep is not None:  # the user scrolled while turns were being added: follow them
            view, offset = self._keep
            self._keep = (view, offset - round(new_value - old_value))
        if self._restoring or self._prefetching:
            return
        page = PREFETCH_PAGES * max(1, self.scrollable_content_region.height)
        if (self._first_mounted and new_value < old_value and new_value < page) or (
            self._hidden_below and new_value > old_value and self.max_scroll_y - new_value < page
        ):
            # after the frame that shows this scroll: re-creating turns must not delay it
            self._prefetching = True
            self.call_after_refresh(self._start_prefetch)

    def _start_prefetch(self) -> None:
        self.run_worker(self._prefetch_task(), group="restore-turns")

    async def _prefetch_task(self) -> None:
        try:
            await self._prefetch()
        finally:
            self._prefetching = False
        # the removed turns are cyclic garbage: collect it now, after the frame, not during a later one
        self.call_after_refresh(gc_tuning.collect_idle)


async def _close_live(view: TurnView) -> None:
    from .reply_stream import LiveReply

    for live in view.query(LiveReply):
        await live.close()
