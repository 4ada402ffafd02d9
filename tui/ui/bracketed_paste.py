"""Bracketed pastes taken out of the terminal input before Textual's key parser, which reads them a character at a time.

Textual's parser spends ~2 s of the input thread (holding the GIL against the UI) on a 1 MB
bracketed paste. `PasteSplitter` finds the start and end markers with `str.find` and hands back
the text between them as one Paste event, and everything else for the parser, in order.
"""

from __future__ import annotations

from textual import events

START, END = "\x1b[200~", "\x1b[201~"


def _partial_marker(text: str, marker: str, shortest: int) -> int:
    """Length of the longest end of `text` (at least `shortest` long) that a following read could complete into `marker`."""
    for size in range(min(len(marker) - 1, len(text)), shortest - 1, -1):
        if marker.startswith(text[-size:]):
            return size
    return 0


class PasteSplitter:
    """Splits each read into text for the key parser (str) and whole bracketed pastes (Paste events)."""

    def __init__(self) -> None:
        self.inside = False
        self._paste: list[str] = []
        self._tail = ""
        #: the key parser itself is inside a bracketed paste (its start marker came split around a lone ESC)
        self.parser_inside = False
        self._fed_tail = ""

    def fed(self, text: str) -> None:
        """Note text given to the key parser: while it is inside a paste of its own, text must keep going to it."""
        seen = self._fed_tail + text
        start, end = seen.rfind(START[1:]), seen.rfind(END[1:])  # its ESC may have come in an earlier read
        if start != end:  # both -1: neither marker, no change
            self.parser_inside = start > end
        self._fed_tail = seen[-(len(START) - 1) :]

    def split(self, data: str) -> list[str | events.Paste]:
        out: list[str | events.Paste] = []
        text, self._tail = self._tail + data, ""
        while text:
            if self.inside:
                end = text.find(END)
                if end < 0:
                    keep = _partial_marker(text, END, 1)
                    self._paste.append(text[: len(text) - keep])
                    self._tail = text[len(text) - keep :]
                    break
                self._paste.append(text[:end])
                out.append(events.Paste("".join(self._paste).replace("\x00", "")))
                self._paste, self.inside, text = [], False, text[end + len(END) :]
            else:
                start = text.find(START)
                if start < 0:
                    # ESC and ESC [ go on at once (Escape, Alt+[); "\x1b[2" waits for the rest of its marker
                    keep = _partial_marker(text, START, 3)
                    if len(text) > keep:
                        out.append(text[: len(text) - keep])
                    self._tail = text[len(text) - keep :]
                    break
                if start:
                    out.append(text[:start])
                self.inside, text = True, text[start + len(START) :]
        return out
