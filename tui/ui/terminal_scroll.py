"""Where a terminal update scrolls: the band of rows that shows, a few rows up or down, what the terminal already
has, chosen by the bytes it saves (the terminal model, terminal_model.py, then writes only what still differs)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from itertools import pairwise
from operator import ne
from typing import Any

from .terminal_sgr import blank_look, erasable

#: a row: the text of each cell ("" for the right half of a wide character) and its look (SGR codes or a Link)
Row = tuple[list[str], list[Any]]
#: a band is scrolled only when it saves at least this many bytes from being written
MIN_SCROLL_BYTES = 160
#: about the bytes of a change of look (a truecolor foreground and background)
SGR_BYTES = 20
#: about the bytes that erase a run of blanks and step over it (`ESC[nX ESC[nC`)
ERASE_BYTES = 10
_BLANKS = re.compile(f" {{{ERASE_BYTES + 1},}}")


def _best_band(gains: list[int], offset: int) -> tuple[int, int, int]:
    """The largest-sum run of gains: (sum, first, last), indices shifted by offset."""
    best = (0, 0, -1)
    total, first = 0, 0
    for i, g in enumerate(gains):
        if total <= 0:
            total, first = g, i
        else:
            total += g
        if total > best[0]:
            best = (total, first + offset, i + offset)
    return best


class PieceKeys:
    """Rows cut where the widgets on them meet: a key per piece, (text, looks), kept from one update to the next.

    A row's lists are never changed once made (an update makes new rows), and most rows an update compares
    against were cut by an earlier update already: unchanged, or moved by a scroll. `find_scroll` cut every
    row of the screen at every range again (a 400-turn soak day's last tenth: 1.70 ms a frame there, now 1.43)."""

    def __init__(self) -> None:
        self._rows: dict[int, tuple[Row, dict[tuple[int, int], Any]]] = {}
        #: pieces cut (a count of the work done; tests read it)
        self.cut = 0

    def of(self, row: Row) -> dict[tuple[int, int], Any]:
        """The pieces of `row` cut so far, by (start, end) columns."""
        entry = self._rows.get(id(row))
        if entry is None or entry[0] is not row:
            entry = self._rows[id(row)] = (row, {})
        return entry[1]

    def pieces(self, row: Row | None, ranges: Sequence[tuple[int, int]]) -> list[Any]:
        """The pieces of `row` at `ranges` (None for each when the row is not known)."""
        if row is None:
            return [None] * len(ranges)
        cut = self.of(row)
        out = []
        for ab in ranges:
            key = cut.get(ab)
            if key is None:
                a, b = ab
                key = cut[ab] = ("".join(row[0][a:b]), tuple(row[1][a:b]))
                self.cut += 1
            out.append(key)
        return out

    def __len__(self) -> int:
        """Rows held."""
        return len(self._rows)

    def keep(self, rows: Iterable[Row | None]) -> None:
        """Forget every row but `rows` (the ones the terminal now shows)."""
        if not self._rows:
            return
        kept = {id(row) for row in rows if row is not None}
        self._rows = {k: v for k, v in self._rows.items() if k in kept}


def write_cost(piece: Any) -> int:
    """About the bytes a piece of a row (see `PieceKeys`) takes to write: its text (a long run of blanks is
    erased in a few bytes), and a look per change."""
    if piece is None:
        return 0
    text, looks = piece
    changes = sum(map(ne, looks, looks[1:])) if len(looks) > 1 else 0
    cost = len(text.encode()) + SGR_BYTES * (1 + changes)
    if " " * ERASE_BYTES in text:
        for blanks in _BLANKS.findall(text):
            cost -= len(blanks) - ERASE_BYTES
    return cost


def fill_look(rows: Iterable[Row | None]) -> str | None:
    """The background most blank cells of `rows` show (codes of a background alone), or None.

    A band is scrolled in this background: the rows it brings in are then blank in it already, as most of
    what they will show is (a panel's blanks beside the conversation need no writing)."""
    counts: dict[Any, int] = {}
    for row in rows:
        if row is not None:
            for ch, look in zip(*row):
                if ch == " ":
                    counts[look] = counts.get(look, 0) + 1
    for look in sorted(counts, key=counts.__getitem__, reverse=True):
        if type(look) is str and look and blank_look(look) == look and erasable(look):
            return look
    return None


def find_scroll(
    new: list[Row | None],
    old: list[Row | None],
    touched: Iterable[int],
    ranges: Sequence[Sequence[tuple[int, int]]],
    fill: str | None = None,
    keys: PieceKeys | None = None,
) -> tuple[int, int, int] | None:
    """(top, bottom, shift) of a band of rows whose content moved up (shift > 0) or down (shift < 0).

    Rows are compared piece by piece, a piece being the part of a row one widget draws (`ranges`, per row):
    a conversation that scrolled beside a tool panel that did not still moves as a band, and only the
    panel's part of its rows is written again. The band chosen saves the most bytes from being written; the
    rows it brings in come blank in `fill` (the background the scroll is done in).
    """
    height = len(old)
    touched = list(touched)
    keys = keys if keys is not None else PieceKeys()
    # where each piece of the new rows was among the old rows, in the same columns (blank pieces say nothing)
    wanted = list(dict.fromkeys(ab for y in touched for ab in ranges[y] if ab[1] - ab[0] > 2))
    index: dict[tuple[int, int], dict[Any, list[int]]] = {ab: {} for ab in wanted}
    for source, row in enumerate(old):
        if row is not None:
            for ab, key in zip(wanted, keys.pieces(row, wanted)):
                index[ab].setdefault(key, []).append(source)
    new_pieces: list[list[Any] | None] = [None] * height

    def pieces(y: int) -> list[Any]:
        got = new_pieces[y]
        if got is None:
            got = new_pieces[y] = keys.pieces(new[y], ranges[y])
        return got

    votes: dict[int, int] = {}
    for y in touched:
        if new[y] is None:
            continue
        for (a, b), key in zip(ranges[y], pieces(y)):
            if b - a <= 2 or key[0].isspace():
                continue
            places = index[(a, b)].get(key)
            if places and len(places) == 1 and places[0] != y:
                votes[places[0] - y] = votes.get(places[0] - y, 0) + (b - a)
    if not votes:
        return None

    costs = [[write_cost(key) for key in pieces(y)] for y in range(height)]
    totals = [sum(c) for c in costs]

    def same(y: int, source: int) -> int:
        """Bytes of the new row y that need no writing when the old row `source` is where it is (same columns,
        cell for cell)."""
        a_row, b_row = new[y], old[source]
        if a_row is None or b_row is None:
            return 0
        if a_row is b_row or a_row == b_row:
            return totals[y]
        (nc, nl), (oc, ol) = a_row, b_row
        return sum(c for c, (a, b) in zip(costs[y], ranges[y]) if nc[a:b] == oc[a:b] and nl[a:b] == ol[a:b])

    stay = [same(y, y) for y in range(height)]

    def brought_in(y: int) -> int:
        """Bytes the new row y loses when a scroll brings it in blank: what stays, less its blank pieces."""
        blank = sum(
            c for c, key in zip(costs[y], pieces(y)) if key is not None and key[0].isspace() and set(key[1]) == {fill}
        )
        return stay[y] - blank

    best: tuple[int, int, int, int] | None = None  # (saved bytes, top, bottom, shift)
    for shift in sorted(votes, key=votes.__getitem__, reverse=True)[:3]:
        m = abs(shift)
        if m >= height:
            continue
        if shift > 0:  # content moved up: new[y] is old[y + m]
            gains = [same(y, y + m) - stay[y] for y in range(height - m)]
            gain, first, last = _best_band(gains, 0)
            top, bottom = first, last + m
            lost = sum(brought_in(y) for y in range(last + 1, bottom + 1))
        else:  # content moved down: new[y] is old[y - m]
            gains = [same(y, y - m) - stay[y] for y in range(m, height)]
            gain, first, last = _best_band(gains, m)
            top, bottom = first - m, last
            lost = sum(brought_in(y) for y in range(top, first))
        saved = gain - lost
        if best is None or saved > best[0]:
            best = (saved, top, bottom, shift)
    if best is None or best[0] < MIN_SCROLL_BYTES:
        return None
    _, top, bottom, shift = best
    return top, bottom, shift


def pieces_of_rows(chop_ends: Sequence[Sequence[int]], width: int, height: int) -> list[list[tuple[int, int]]]:
    """Per row, the (start, end) columns of each widget's part of it, from the compositor's chop ends."""
    ranges: list[list[tuple[int, int]]] = []
    cache: dict[tuple[int, ...], list[tuple[int, int]]] = {}
    for y in range(height):
        ends = tuple(chop_ends[y]) if y < len(chop_ends) else (width,)
        pieces = cache.get(ends)
        if pieces is None:
            pieces = cache[ends] = list(pairwise((0, *(x for x in ends if 0 < x < width), width)))
        ranges.append(pieces)
    return ranges
