"""Unbracketed pastes: a run of typed-in text that arrives in one read becomes one `Paste` event.

Without bracketed-paste markers a terminal delivers a paste as plain bytes, and Textual turns
every character into its own Key event: a 1 MB paste was a million events, each walking the
binding chain and inserting one character (minutes of UI work and gigabytes of queued
events), and every newline in it pressed Enter. A person cannot type `PASTE_RUN_MIN` keys
between two reads of the terminal, so such a run is a paste; its newlines stay newlines.
A paste longer than one read arrives in several: the parts are joined into one Paste (one
insert, one notice if it is too big), and an Enter that ends a read right after pasted text
waits to see whether more text follows (then it was a newline) or not (then it was Enter).
"""

from __future__ import annotations

import os
import selectors
import time
from codecs import getincrementaldecoder
from collections.abc import Callable
from typing import Any

from textual import events
from textual.driver import Driver
from textual.message import Message

from .bracketed_paste import PasteSplitter

#: this many text keys in one read are a paste, not typing
PASTE_RUN_MIN = 32
#: a paste split over several reads: how long to wait for the next part after a short read...
HOLD_S = 0.05
#: ...and after a large read (more is likely coming: tmux writes a paste 4095 bytes at a time, ~0.1 s apart)
LARGE_READ_HOLD_S = 1.0
LARGE_READ_BYTES = 1024
#: bytes per read of the terminal (Textual's own value)
READ_SIZE = 4096
#: what a read waits for when nothing is held (Textual's own value)
IDLE_WAIT_S = 0.1

_TEXT_KEYS = {"enter": "\n", "ctrl+j": "\n", "tab": "\t"}


_NOT_CONTROL = str.maketrans("", "", "\r\n\t")


def plain_text(data: str) -> bool:
    """True if a read holds only text (no escape sequence or control key): it can skip the key parser."""
    return data.translate(_NOT_CONTROL).isprintable()


def _text_of(event: Message | str) -> str | None:
    """The text a key (or a plain-text read) types, or None if it is not a plain text key."""
    if isinstance(event, str):
        return event.replace("\r\n", "\n").replace("\r", "\n")
    if not isinstance(event, events.Key) or event.character is None:
        return None
    if event.key in _TEXT_KEYS:
        return _TEXT_KEYS[event.key]
    return event.character if event.is_printable else None


class PasteJoiner:
    """Turns the events of each read into the same events, with a pasted run (over one read or many) as one Paste."""

    def __init__(self, min_run: int = PASTE_RUN_MIN, clock: Callable[[], float] = time.monotonic) -> None:
        self.min_run = min_run
        self._clock = clock
        self._pieces: list[str] = []  # the text of a paste that may go on in the next read
        self._trailing: events.Key | None = None  # an Enter that ended the last read: newline or Enter?
        self._deadline = 0.0

    @property
    def open(self) -> bool:
        return bool(self._pieces) or self._trailing is not None

    def wait_s(self) -> float:
        """How long the next read may wait before `feed` must be called anyway."""
        return max(0.0, self._deadline - self._clock()) if self.open else IDLE_WAIT_S

    def feed(self, batch: list[Any], large: bool = False, in_time: bool | None = None) -> list[Message]:
        """The events of one read (`large`: of LARGE_READ_BYTES or more; a str: a plain-text read that skipped
        the key parser) or none (a timeout), with pasted runs joined.

        `in_time`: the read's bytes were there before the hold (`wait_s`) ran out, as the reader's wait saw it. The
        clock read here, after the wait returned, can be far later on a busy machine (the thread waits for the CPU
        and the GIL), and a paste whose next part came in time was cut in two. None: judge by the clock."""
        now = self._clock()
        out: list[Message] = []
        segments = self._segments(batch)
        if self.open:
            continues = now <= self._deadline if in_time is None else in_time
            if segments and isinstance(segments[0], list) and continues:
                self._extend(segments.pop(0))  # the paste goes on
                if segments:
                    out.extend(self._flush())
            else:
                out.extend(self._flush())
        for index, segment in enumerate(segments):
            if not isinstance(segment, list):
                out.append(segment)
            elif sum(1 if isinstance(item, events.Key) else len(item) for item in segment) < self.min_run:
                out.extend(
                    item if isinstance(item, events.Key) else events.Paste(_text_of(item) or "") for item in segment
                )
            else:
                self._extend(segment)
                if index < len(segments) - 1:
                    out.extend(self._flush())
        if self.open:
            self._deadline = now + (LARGE_READ_HOLD_S if large else HOLD_S)
        return out

    def _extend(self, run: list[Any]) -> None:
        """Add a run of text keys and plain-text reads to the open paste; an Enter at its end waits."""
        if self._trailing is not None:
            self._pieces.append("\n")  # more text followed: that Enter was a newline of the paste
            self._trailing = None
        text = "".join(_text_of(item) or "" for item in run)
        last = run[-1]
        if (last.key == "enter") if isinstance(last, events.Key) else last.endswith("\r"):
            self._trailing = last if isinstance(last, events.Key) else events.Key("enter", "\r")
            text = text[:-1]
        self._pieces.append(text)

    def _flush(self) -> list[Message]:
        """The open paste as one Paste event, then the Enter that ended a short one (tmux's `send-keys text Enter`)."""
        text = "".join(self._pieces)
        if self._trailing is not None and len(text) >= LARGE_READ_BYTES:
            text, self._trailing = text + "\n", None  # after a big paste it is the paste's last newline
        out: list[Message] = [events.Paste(text)] if text else []
        if self._trailing is not None:
            out.append(self._trailing)
        self._pieces, self._trailing = [], None
        return out

    @staticmethod
    def _segments(batch: list[Any]) -> list[Any]:
        """The batch as runs of text keys and plain-text reads (lists) and the other events between them."""
        segments: list[Any] = []
        for event in batch:
            if _text_of(event) is None:
                segments.append(event)
            elif segments and isinstance(segments[-1], list):
                segments[-1].append(event)
            else:
                segments.append([event])
        return segments


def _run_input_thread(self: Any) -> None:
    """LinuxDriver.run_input_thread (Textual 8.2) with each read's events passed through a PasteJoiner."""
    from textual._xterm_parser import XTermParser

    selector = selectors.SelectSelector()
    selector.register(self.fileno, selectors.EVENT_READ)
    parser = XTermParser(self._debug)
    decode = getincrementaldecoder("utf-8")().decode
    joiner = PasteJoiner()
    splitter = PasteSplitter()

    def read_once(timeout: float, final: bool = False) -> None:
        batch: list[Message | str] = []  # events, and runs of plain text read as they are
        large = False
        ready = selector.select(timeout)
        for _key, mask in ready:
            if mask & selectors.EVENT_READ:
                raw = os.read(self.fileno, READ_SIZE)
                data = decode(raw, final=final)
                if not data:
                    break
                large = len(raw) >= LARGE_READ_BYTES
                for part in splitter.split(data):
                    if not isinstance(part, str):
                        batch.append(part)  # a whole bracketed paste
                    elif (
                        len(part) >= PASTE_RUN_MIN
                        and getattr(parser, "_timeout_time", None) is None
                        and not splitter.parser_inside
                        and plain_text(part)
                    ):
                        batch.append(part)  # 4 KB of pasted text: ~0.1 s through the key parser, ~0 as it is
                    else:
                        splitter.fed(part)
                        batch.extend(parser.feed(part))
        for event in joiner.feed(batch, large, in_time=bool(ready)) + list(parser.tick()):
            self.process_message(event)

    try:
        while not self.exit_event.is_set():
            read_once(joiner.wait_s())
        selector.unregister(self.fileno)
        read_once(IDLE_WAIT_S, final=True)
    finally:
        selector.close()
        try:
            for _event in parser.feed(""):
                pass
        except Exception:  # EOFError or ParseError at shutdown, as Textual ignores them
            pass


def paste_aware(driver_class: type[Driver]) -> type[Driver]:
    """`driver_class` with unbracketed pastes joined, if it reads a POSIX terminal; else unchanged."""
    from textual.drivers.linux_driver import LinuxDriver

    if not issubclass(driver_class, LinuxDriver):
        return driver_class
    return type("PasteAwareDriver", (driver_class,), {"run_input_thread": _run_input_thread})
