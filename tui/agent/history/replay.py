"""`agent-tui replay`: a recorded session's events, rebuilt from its transcript and played back in time.

The transcript keeps every loop event except the per-token deltas and tool output chunks;
the deltas are rebuilt from each finished block so the text streams again, each request's
body gets its messages back from the `message` records, and a permission question is
asked again and withdrawn when its recorded answer comes. Nothing is sent and no tool
runs: the player only publishes events on a bus.
"""

from __future__ import annotations

import json
import threading
import time
from concurrent.futures import Future
from dataclasses import fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui.agent import events as ev
from tui.config.special_files import read_regular_bytes

from .replay_check import SPEEDS, ReplayError, check_replayable
from .transcript_images import StoredImages

if TYPE_CHECKING:
    from tui.agent.events.bus import EventBus

__all__ = ["SPEEDS", "Player", "ReplayError", "check_replayable", "event_from_dict", "load_events"]

#: a longer pause in the recording (the user away, a permission question open) plays as this long at 1x
MAX_GAP_S = 1.5
#: characters per rebuilt text delta
DELTA_CHARS = 24
_SKIP = {"BlockDelta", "ToolOutput"}
CUT_DETAIL = "The recording ends here: the session file stops in the middle of this turn."


def event_from_dict(data: dict[str, Any]) -> ev.Event | None:
    """The event a transcript's `event` record describes; None for a type or shape this version does not know."""
    cls = getattr(ev, str(data.get("type", "")), None)
    if not isinstance(cls, type) or not issubclass(cls, ev.Event) or cls is ev.Event:
        return None
    values: dict[str, Any] = {}
    for f in fields(cls):
        if f.name == "reply":
            values["reply"] = Future()  # asked again; withdrawn when the recorded answer comes
        elif f.name in data:
            value = data[f.name]
            if isinstance(value, list) and "tuple" in str(f.type):  # JSON made the tuples lists
                value = tuple(tuple(v) if isinstance(v, list) else v for v in value)
            values[f.name] = value
    try:
        return cls(**values)
    except TypeError:
        return None


def _deltas(event: ev.BlockFinished) -> list[ev.Event]:
    """The text or thinking deltas that built a finished block, rebuilt so the reply streams again."""
    block = event.block
    kind = block.get("type")
    text = block.get("text") if kind == "text" else block.get("thinking") if kind == "thinking" else None
    if not isinstance(text, str) or not text:
        return []
    delta_type = "text_delta" if kind == "text" else "thinking_delta"
    return [
        ev.BlockDelta(
            ts=event.ts,
            iteration=event.iteration,
            index=event.index,
            delta_type=delta_type,
            text=text[i : i + DELTA_CHARS],
        )
        for i in range(0, len(text), DELTA_CHARS)
    ]


def load_events(path: Path) -> tuple[list[ev.Event], int]:
    """Every event of a transcript in order, and how many records were skipped (damaged or unknown)."""
    try:
        raw = read_regular_bytes(path)
    except OSError as exc:
        raise ReplayError(f"Could not read the session file {path}: {exc.strerror or exc}.") from None
    out: list[ev.Event] = []
    messages: list[Any] = []
    images = StoredImages()  # a picture's bytes are written once; its references are filled back in
    skipped = 0
    for line in raw.split(b"\n"):
        if not line.strip():
            continue
        try:
            record = images.fill(line, json.loads(line))
            kind = record.get("type")
            if kind == "message":
                messages.append(record["message"])
            elif kind in ("compaction", "history"):
                messages = list(record["messages"])
            elif kind == "merge_user" and messages:
                messages[-1] = record["message"]
            elif kind == "request":
                body = dict(record["body"])
                count = int(body.pop("messages_count", len(messages)))
                body["messages"] = messages[:count]
                out.append(
                    ev.RequestSent(
                        ts=float(record.get("ts") or 0.0),
                        iteration=int(record["iteration"]),
                        attempt=int(record.get("attempt") or 1),
                        model=str(body.get("model", "")),
                        body=body,
                    )
                )
            elif kind == "event":
                if record["event"].get("type") in _SKIP:
                    continue
                event = event_from_dict(record["event"])
                if event is None:
                    skipped += 1
                    continue
                if isinstance(event, ev.BlockFinished):
                    out += _deltas(event)
                out.append(event)
        except (ValueError, TypeError, KeyError, AttributeError, RecursionError):
            skipped += 1
    if not any(isinstance(e, ev.TurnStarted) for e in out):
        raise ReplayError(
            f"The session file {path} holds no recorded turn to replay "
            "(it is empty, damaged, or from a version that did not record events)."
        )
    return out + _close_cut_turn(out), skipped


def _close_cut_turn(events: list[ev.Event]) -> list[ev.Event]:
    """The end of a turn the recording stops inside (a file cut mid-record, a killed writer): the loop stops
    there, so running tools and the busy state end as they would have, and the replay says why; else []."""
    starts = [i for i, e in enumerate(events) if isinstance(e, ev.TurnStarted) and e.loop_path == "main"]
    if not starts:
        return []
    last_start = starts[-1]
    if any(isinstance(e, ev.TurnFinished) and e.loop_path == "main" for e in events[last_start:]):
        return []
    turn = events[last_start]
    assert isinstance(turn, ev.TurnStarted)
    ts = events[-1].ts
    closing: list[ev.Event] = []
    if not any(isinstance(e, ev.LoopStopped) and e.loop_path == "main" for e in events[last_start:]):
        closing.append(ev.LoopStopped(ts=ts, reason="error", is_error=True, detail=CUT_DETAIL))
    before = [e for e in events[:last_start] if isinstance(e, ev.TurnFinished) and e.loop_path == "main"]
    totals, cost = (dict(before[-1].session_usage), before[-1].session_cost_usd) if before else ({}, 0.0)
    closing.append(
        ev.TurnFinished(
            ts=ts,
            turn_id=turn.turn_id,
            stop_reason="error",
            is_error=True,
            num_iterations=0,
            duration_ms=int(max(ts - turn.ts, 0.0) * 1000),
            usage={},
            cost_usd=0.0,
            session_usage=totals,
            session_cost_usd=cost,
        )
    )
    return closing


class Player:
    """Publishes recorded events on a bus with their recorded spacing, scaled by the speed; thread-safe controls."""

    def __init__(self, events: list[ev.Event], bus: EventBus, speed: float = 1.0) -> None:
        self.events = events
        self.bus = bus
        self.speed = speed
        self.position = 0
        self.paused = False
        self._wake = threading.Condition()
        self._steps = 0
        self._stopped = False
        self.thread: threading.Thread | None = None

    @property
    def done(self) -> bool:
        return self.position >= len(self.events)

    def start(self) -> None:
        self.thread = threading.Thread(target=self._run, name="replay", daemon=True)
        self.thread.start()

    def stop(self) -> None:
        with self._wake:
            self._stopped = True
            self._wake.notify_all()

    def toggle_pause(self) -> bool:
        with self._wake:
            self.paused = not self.paused
            self._wake.notify_all()
            return self.paused

    def step(self) -> None:
        """Play one event now (and stay paused)."""
        with self._wake:
            self.paused = True
            self._steps += 1
            self._wake.notify_all()

    def change_speed(self, direction: int) -> float:
        """Next or previous speed of SPEEDS (1x, 4x, 16x, instant)."""
        with self._wake:
            index = SPEEDS.index(self.speed) if self.speed in SPEEDS else 0
            self.speed = SPEEDS[max(0, min(len(SPEEDS) - 1, index + direction))]
            self._wake.notify_all()
            return self.speed

    def _gap(self) -> float:
        if self.position == 0 or self.speed == 0:
            return 0.0
        previous, current = self.events[self.position - 1], self.events[self.position]
        if isinstance(current, ev.BlockDelta):
            return 0.02 / self.speed
        return min(max(current.ts - previous.ts, 0.0), MAX_GAP_S) / self.speed

    def _run(self) -> None:
        while True:
            with self._wake:
                deadline = time.monotonic() + self._gap()
                while not self._stopped:
                    if self.paused:
                        if self._steps:
                            self._steps -= 1
                            break
                        self._wake.wait()
                        deadline = time.monotonic()
                        continue
                    left = deadline - time.monotonic()
                    if left <= 0:
                        break
                    self._wake.wait(left)
                if self._stopped or self.done:
                    return
                event = self.events[self.position]
                self.position += 1
            self.bus.publish(event)
            if self.done:
                return
