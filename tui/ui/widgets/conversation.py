"""The conversation pane: a bottom-anchored scroll of turns with a bounded widget count.

Every turn's data lives in `turns` (a list of TurnRecord). At most `max_mounted` turns are
widgets at any time; older ones are removed from the DOM and re-created from their
records when the user scrolls to the top. That keeps each new mount and each restyle
cheap however long the session gets (feasibility §3: cost grows with live widgets).
"""

from __future__ import annotations

from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Static

from .blocks import compose_blocks
from .conversation_model import TurnRecord

MAX_MOUNTED_TURNS = 40
RESTORE_BATCH = 4
#: turns mounted when a history is loaded (older ones load as the user scrolls up)
HISTORY_TAIL_TURNS = 10


class TurnView(Vertical):
    """The widgets of one turn; re-creatable from its record."""

    def __init__(self, record: TurnRecord, *, rebuild: bool = False) -> None:
        super().__init__(classes="turn")
        self.record = record
        self._rebuild = rebuild

    def compose(self):
        if self._rebuild:
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
        shown = records[-max(1, min(tail, self.max_mounted)):]
        self.turns.extend(records)
        self._first_mounted = len(records) - len(shown)
        self._hidden_below = 0
        with self.app.batch_update():
            await self.mount_all([TurnView(r, rebuild=True) for r in shown])
            self._sync_earlier()
        self.jump_to_bottom()

    async def clear_turns(self) -> None:
        self.turns.clear()
        self._first_mounted = 0
        self._hidden_below = 0
        await self.query_children(TurnView).remove()
        self._sync_earlier()
        self.anchor()

    async def _prune(self) -> None:
        views = self.mounted_views
        excess = len(views) - self.max_mounted
        if excess <= 0:
            return
        for view in views[:excess]:
            await _close_live(view)
        await self.remove_children(views[:excess])
        self._first_mounted = self.turns.index(views[excess].record)
        self._sync_earlier()

    def _sync_earlier(self) -> None:
        hidden = self._first_mounted
        self._earlier.display = hidden > 0
        if hidden:
            noun = "turn" if hidden == 1 else "turns"
            self._earlier.update(f"↑ {hidden} earlier {noun} · scroll to the top to load them")

    async def restore_earlier(self) -> int:
        """Re-create up to RESTORE_BATCH pruned turns above the first mounted one."""
        if self._first_mounted == 0 or self._restoring:
            return 0
        self._restoring = True
        try:
            start = max(0, self._first_mounted - RESTORE_BATCH)
            records = self.turns[start : self._first_mounted]
            views = [TurnView(r, rebuild=True) for r in records]
            old_max = self.max_scroll_y
            await self.mount_all(views, after=self._earlier)
            self._first_mounted = start
            self._sync_earlier()
            mounted = self.mounted_views
            excess = len(mounted) - self.max_mounted
            if excess > 0:  # the newest views are far below what the user reads: drop them for now
                for view in mounted[-excess:]:
                    await _close_live(view)
                await self.remove_children(mounted[-excess:])
                self._hidden_below += excess
            # keep what the user was looking at in place
            self.call_after_refresh(lambda: self.scroll_to(y=self.max_scroll_y - old_max, animate=False))
            return len(views)
        finally:
            self._restoring = False

    async def restore_later(self) -> int:
        """Re-create up to RESTORE_BATCH turns below the newest mounted one (dropped while reading old turns)."""
        if not self._hidden_below or self._restoring:
            return 0
        self._restoring = True
        try:
            end = len(self.turns) - self._hidden_below
            records = self.turns[end : end + RESTORE_BATCH]
            await self.mount_all([TurnView(r, rebuild=True) for r in records])
            self._hidden_below -= len(records)
            mounted = self.mounted_views
            excess = len(mounted) - self.max_mounted
            if excess > 0:  # drop as many at the top, keeping what the user reads in place
                removed = mounted[excess].virtual_region.y - mounted[0].virtual_region.y
                await self.remove_children(mounted[:excess])
                self._first_mounted += excess
                self._sync_earlier()
                self.scroll_to(y=max(0, self.scroll_y - removed), animate=False)
            return len(records)
        finally:
            self._restoring = False

    async def _remount_tail(self) -> None:
        """Back to the newest turns (a new turn starts, or the user jumps to the bottom)."""
        tail = self.turns[-HISTORY_TAIL_TURNS:]
        with self.app.batch_update():
            await self.query_children(TurnView).remove()
            self._hidden_below = 0
            self._first_mounted = len(self.turns) - len(tail)
            await self.mount_all([TurnView(r, rebuild=True) for r in tail])
            self._sync_earlier()
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

    def _set_seen(self) -> None:
        if self._unseen:
            self._unseen = False
            self.post_message(self.FollowChanged(True, False))

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if new_value >= self.max_scroll_y - 1:
            self._set_seen()
        if new_value <= 0 and old_value > 0 and self._first_mounted > 0:
            self.run_worker(self.restore_earlier(), group="restore-turns", exclusive=True)
        elif new_value >= self.max_scroll_y - 1 and new_value > old_value and self._hidden_below:
            self.run_worker(self.restore_later(), group="restore-turns", exclusive=True)


async def _close_live(view: TurnView) -> None:
    from .reply_stream import LiveReply

    for live in view.query(LiveReply):
        await live.close()
