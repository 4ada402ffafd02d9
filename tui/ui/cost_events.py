"""Cost and context events in the app: cache breaks, compaction (asked, started, done) and pins.

A mixin of `EventController` (tui/ui/events.py), kept apart so that file stays about the loop.
"""

from __future__ import annotations

from concurrent.futures import InvalidStateError
from functools import partial
from typing import TYPE_CHECKING, Any

from tui.agent import events as ev
from tui.agent.cost.report import cache_miss_line, short_tokens
from tui.text.wording import plural, shorten

from .widgets.status_line import human_tokens

if TYPE_CHECKING:
    from .app import AgentApp


def compaction_note(plan: dict[str, Any]) -> str:
    """ "turns 1–7 (22 messages, ~41.3k tokens) summarised; turns 8–10 kept verbatim; 1 pinned prompt kept"."""
    if not plan.get("possible"):
        return ""
    summarised, kept = plan["summarised"], plan["kept"]
    note = (
        f"{summarised['turns']} ({plural(summarised['messages'], 'message')}, "
        f"~{short_tokens(summarised['tokens'])} tokens) summarised; {kept['turns']} kept verbatim"
    )
    if plan.get("pinned"):
        note += f"; {plural(len(plan['pinned']), 'pinned prompt')} kept"
    if plan.get("requests", 1) > 1:  # a history larger than one summary request (compaction_pieces.py)
        note += f"; written in {plural(plan['requests'], 'request')}"
    if left := plan.get("left_out"):
        note += (
            f"; the oldest {plural(left['messages'], 'message')} (~{short_tokens(left['tokens'])} tokens) "
            "left out unread, as the summary says"
        )
    return note


def compaction_done(messages_before: int, messages_after: int, plan: dict[str, Any]) -> str:
    """The marker after a compaction: counts, what was summarised and kept, where to see and undo it."""
    note = compaction_note(plan)
    return (
        f"context compacted: {plural(messages_before, 'message')} → {messages_after} "
        "(a summary replaces the older turns)"
        + (f": {note}" if note else "")
        + ". /context shows what was dropped; /rewind goes back before it"
    )


class CostHandlers:
    """Handlers the controller maps CacheMissed, Compaction* and MessagePinned to."""

    app: AgentApp
    busy: bool

    async def add_marker(self, text: str, tone: str) -> None:
        raise NotImplementedError

    def _update_running_state(self) -> None:
        raise NotImplementedError

    async def on_cache_missed(self, e: ev.CacheMissed) -> None:
        await self.add_marker(cache_miss_line(e), "warn")

    async def on_message_pinned(self, e: ev.MessagePinned) -> None:
        await self.add_marker(
            f"pinned: “{shorten(' '.join(e.text.split()), 80)}” is kept verbatim through every "
            f"compaction ({e.pins} pinned; /unpin takes the newest back)",
            "info",
        )

    async def on_compaction_started(self, e: ev.CompactionStarted) -> None:
        from .screens.compaction_dialog import CompactionDialog

        screen = self.app.screen
        if isinstance(screen, CompactionDialog) and not screen.reply.done():  # a replay: nobody answers it
            screen.reply.cancel()
        how = "automatically" if e.automatic else "as asked"
        await self.add_marker(f"⧗ compacting the context {how} ({human_tokens(e.used_tokens)} tokens in use)…", "info")
        self.app.status.set_state("compacting")

    async def on_compaction_finished(self, e: ev.CompactionFinished) -> None:
        if e.ok:
            await self.add_marker(compaction_done(e.messages_before, e.messages_after, e.plan), "stop")
        elif e.interrupted:
            await self.add_marker("compaction cancelled: the history is unchanged", "info")
        else:
            await self.add_marker(f"compaction failed, history kept: {e.detail or 'no detail'}", "warn")
        self.app.status.set_state("waiting for model" if self.busy else "idle")

    async def on_compaction_proposed(self, e: ev.CompactionProposed) -> None:
        from .screens.compaction_dialog import CompactionDialog

        self.app.status.set_state("waiting for approval", "(compact the context?)")
        dialog = CompactionDialog(e.plan, e.reply, grace_s=self.app.permission_grace_s)
        self.app.push_screen(dialog, callback=partial(self._compaction_answered, e))

    def _compaction_answered(self, e: ev.CompactionProposed, answer: dict[str, Any] | None) -> None:
        if e.reply.done():
            return
        try:
            e.reply.set_result(answer if answer is not None else {"choice": "later", "focus": ""})
        except InvalidStateError:  # interrupted meanwhile
            pass
        self.app.status.set_state("compacting" if answer and answer.get("choice") != "later" else "waiting for model")
