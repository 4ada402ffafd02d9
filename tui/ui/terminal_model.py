"""What the terminal shows, cell by cell, so a partial update writes only the cells that change.

Textual's partial update rewrites every dirty span in full: a status line whose clock ticks rewrites the whole
line, and a conversation that scrolls one row while a reply streams rewrites every row it shows (it has no
notion of the terminal's own scrolling). `TerminalModel` keeps, for each row, the characters and looks the
last updates left there. `DiffChopsUpdate` (built by the row compositor) works out the rows its spans
produce, then

- when a band of rows shows what the terminal has a few rows further down (or up), scrolls that band with
  the terminal's scroll region (`ESC[top;bottom r`, `ESC[n S` / `ESC[n T`) instead of redrawing it,
- and writes, row by row, only the runs of cells that differ from what the terminal has (a long run of
  blanks erased with `ESC[nX`, which leaves the background colour, all a blank shows).

The cells that end up on the terminal are the ones Textual's own update would leave there. A row the model
does not know (never drawn through it, or drawn by an update that is not tracked: another screen, a modal,
after a suspend) is written as Textual would write its spans, and becomes known once a full row is drawn.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from rich.cells import get_character_cell_size
from rich.color import ColorSystem
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from textual._compositor import ChopsUpdate, LayoutUpdate
from textual.geometry import Size
from textual.strip import Strip

from .terminal_scroll import PieceKeys, Row, fill_look, find_scroll, pieces_of_rows
from .terminal_sgr import blank_alike, blank_look, erasable, sgr

#: unchanged cells between two changed runs of a row that are rewritten rather than jumped over (a cursor move
#: costs about as many bytes)
GAP = 8


class Link:
    """The look of a hyperlinked cell: compared by its codes and URL, drawn with its style."""

    __slots__ = ("codes", "style", "url")

    def __init__(self, codes: str, url: str, style: Style) -> None:
        self.codes, self.url, self.style = codes, url, style

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Link) and other.codes == self.codes and other.url == self.url

    def __hash__(self) -> int:
        return hash((self.codes, self.url))


class TerminalModel:
    """The rows the terminal shows; None for a row not known."""

    def __init__(self) -> None:
        self.width = self.height = 0
        self.rows: list[Row | None] = []
        #: the rows shown, cut where widgets meet, for the next update's scroll search (kept for `rows` only)
        self.pieces = PieceKeys()

    def reset(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.rows = [None] * height
        self.pieces = PieceKeys()

    def invalidate(self) -> None:
        """Forget every row (the terminal was drawn by something that is not tracked)."""
        self.rows = [None] * self.height
        self.pieces = PieceKeys()


def look_of(style: Style | None, color_system: ColorSystem) -> Any:
    if style is None:
        return ""
    codes = style._ansi or style._make_ansi_codes(color_system)
    if style._link:
        return Link(codes, style._link, style)
    return codes


def add_cells(segments: Iterable[Segment], chars: list[str], looks: list[Any], color_system: ColorSystem) -> bool:
    """Append the cells of `segments`; False if a segment holds what the model cannot follow (a control)."""
    for text, style, control in segments:
        if control or not text:
            if control:
                return False
            continue
        look = look_of(style, color_system)
        if text.isascii():
            if not text.isprintable():
                return False
            chars.extend(text)
            if (text[0] != " " and text[-1] != " ") or type(look) is not str:
                looks.extend([look] * len(text))
                continue
            # blanks at either end (a row's padding) in the look they show: the same row rendered by another
            # widget then compares equal (see `blank_look`)
            body = text.strip(" ")
            lead = text.index(body) if body else len(text)
            blank = blank_look(look)
            looks.extend([blank] * lead)
            looks.extend([look] * len(body))
            looks.extend([blank] * (len(text) - lead - len(body)))
            continue
        for ch in text:
            width = get_character_cell_size(ch)
            if width == 1:
                chars.append(ch)
                looks.append(look)
            elif width == 2:
                chars += (ch, "")
                looks += (look, look)
            elif width == 0 and chars and chars[-1] is not None and ord(ch) >= 0x300:
                # a combining mark, joiner or selector rides on the character before it
                chars[-2 if chars[-1] == "" and len(chars) > 1 else -1] += ch
            else:  # a control character
                return False
    return True


def row_of(strips: Iterable[Strip], width: int, color_system: ColorSystem) -> Row | None:
    chars: list[str] = []
    looks: list[Any] = []
    for strip in strips:
        if not add_cells(strip, chars, looks, color_system):
            return None
    return (chars, looks) if len(chars) == width else None


class _Writer:
    """Terminal bytes: cursor moves only when needed, a look set only when it changes, and then by what changes."""

    def __init__(self, color_system: ColorSystem) -> None:
        self.out: list[str] = []
        self.color_system = color_system
        self.cursor: tuple[int, int] | None = None
        self.current: str | None = None  # the SGR codes the terminal has now (None: the default)

    def move(self, x: int, y: int) -> None:
        if self.cursor != (x, y):
            self.out.append(f"\x1b[{y + 1};{x + 1}H")

    def reset(self) -> None:
        if self.current is not None:
            self.out.append("\x1b[0m")
            self.current = None

    def segments(self, x: int, y: int, strip: Strip) -> None:
        """Write a strip as it is (a span of a row the model does not know)."""
        self.move(x, y)
        append = self.out.append
        for text, style, _ in strip:
            if style is not None and style._link:
                self.reset()
                append(Style.render(style, text, color_system=self.color_system))
                continue
            codes = (style._ansi or style._make_ansi_codes(self.color_system)) if style is not None else ""
            if codes != (self.current or ""):
                append(sgr(self.current or "", codes))
                self.current = codes or None
            append(text)
        self.cursor = (x + strip.cell_length, y)

    def cells(self, row: Row, start: int, end: int, y: int, width: int) -> None:
        """Write the cells start…end-1 of a row; a long run of blanks is erased (ECH) rather than written."""
        chars, looks = row
        self.move(start, y)
        append = self.out.append
        i = start
        at = end  # where the cursor is left
        while i < end:
            look = looks[i]
            j = i + 1
            while j < end and looks[j] == look:
                j += 1
            text = "".join(chars[i:j])
            current = self.current or ""
            if isinstance(look, Link):
                self.reset()
                append(Style.render(look.style, text, color_system=self.color_system))
            elif text.isascii() and text.isspace():
                erase = f"\x1b[{j - i}X" + (f"\x1b[{j - i}C" if j < end else "")
                if len(erase) >= j - i or not erasable(look):
                    erase = text
                if look != current and not blank_alike(current, look):
                    append(sgr(current, look))
                    self.current = look or None
                append(erase)
                if j == end and erase is not text:
                    at = i  # ECH leaves the cursor where the blanks start
            elif look != current:
                append(sgr(current, look))
                self.current = look or None
                append(text)
            else:
                append(text)
            i = j
        self.cursor = (at, y) if at < width else None

    def text(self) -> str:
        self.reset()
        return "".join(self.out)


def changed_runs(new: Row, old: Row, width: int) -> list[tuple[int, int]]:
    """The runs [start, end) of cells that differ, runs less than GAP apart joined, wide characters kept whole."""
    nc, nl = new
    oc, ol = old
    if nc == oc and nl == ol:
        return []
    runs: list[tuple[int, int]] = []
    step = GAP
    for a in range(0, width, step):  # compare a chunk at a time (in C), then find the edges within it
        b = min(width, a + step)
        if nc[a:b] == oc[a:b] and nl[a:b] == ol[a:b]:
            continue
        if runs and runs[-1][1] == a:
            runs[-1] = (runs[-1][0], b)
        else:
            runs.append((a, b))
    out: list[tuple[int, int]] = []
    for start, end in runs:
        while nc[start] == oc[start] and nl[start] == ol[start]:
            start += 1
        while nc[end - 1] == oc[end - 1] and nl[end - 1] == ol[end - 1]:
            end -= 1
        if out and start - out[-1][1] < GAP:
            start = out.pop()[0]
        while start > 0 and nc[start] == "":
            start -= 1
        while end < width and nc[end] == "":
            end += 1
        out.append((start, end))
    return out


def scrolled(
    writer: _Writer, old: list[Row | None], scroll: tuple[int, int, int], fill: str | None, width: int
) -> list[Row | None]:
    """Scroll the band (top, bottom, shift) on the terminal in the background `fill`; the rows it then shows.

    The rows a scroll brings in are blank in the current background (as an erase is): known when `fill` is
    set, else not known (None)."""
    top, bottom, shift = scroll
    m = abs(shift)
    if fill is not None and writer.current != fill:
        writer.out.append(sgr(writer.current or "", fill))
        writer.current = fill
    writer.out.append(f"\x1b[{top + 1};{bottom + 1}r\x1b[{m}{'S' if shift > 0 else 'T'}\x1b[r")
    writer.cursor = None  # DECSTBM homes the cursor
    blank: list[Row | None] = [([" "] * width, [fill] * width) if fill is not None else None for _ in range(m)]
    rows = list(old)
    if shift > 0:
        rows[top : bottom + 1 - m] = old[top + m : bottom + 1]
        rows[bottom + 1 - m : bottom + 1] = blank
    else:
        rows[top + m : bottom + 1] = old[top : bottom + 1 - m]
        rows[top : top + m] = blank
    return rows


class DiffChopsUpdate(ChopsUpdate):
    """A partial update written against the terminal model: scrolled bands, then only the cells that changed."""

    def __init__(
        self,
        chops: Sequence[Mapping[int, Strip | None]],
        spans: list[tuple[int, int, int]],
        chop_ends: list[list[int]],
        terminal: TerminalModel,
        size: Size,
    ) -> None:
        super().__init__(chops, spans, chop_ends)
        self.terminal = terminal
        self.size = size
        self._rendered: str | None = None

    def render_segments(self, console: Console) -> str:
        if self._rendered is None:  # once: it moves the model on
            self._rendered = self._render(console._color_system or ColorSystem.TRUECOLOR)
        return self._rendered

    def _pieces(self) -> dict[int, list[tuple[int, Strip]]]:
        """Per row, what Textual's update writes: (x, strip) for each chop a span crosses."""
        pieces: dict[int, list[tuple[int, Strip]]] = {}
        chops, chop_ends = self.chops, self.chop_ends
        for y, x1, x2 in self.spans:
            row = pieces.setdefault(y, [])
            for end, (x, strip) in zip(chop_ends[y], chops[y].items()):
                if strip is None or x > x2 or end <= x1:
                    continue
                if not (x2 > x >= x1 and end <= x2):
                    strip = strip.crop(0, min(end, x2) - x)
                if strip.cell_length:
                    row.append((x, strip))
        return pieces

    def _render(self, color_system: ColorSystem) -> str:
        model = self.terminal
        width, height = self.size
        if (model.width, model.height) != (width, height):
            model.reset(width, height)
        old = model.rows
        new: list[Row | None] = list(old)
        whole: set[int] = set()  # known rows to draw in full (a wide character cut by a span)
        blind: dict[int, list[tuple[int, Strip]]] = {}  # rows not known: their pieces written as they are
        pieces = self._pieces()
        for y, row_pieces in pieces.items():
            if not 0 <= y < height:
                continue
            base = old[y]
            chars: list[Any] = list(base[0]) if base is not None else [None] * width
            looks: list[Any] = list(base[1]) if base is not None else [None] * width
            ok = True
            for x, strip in row_pieces:
                c: list[str] = []
                lk: list[Any] = []
                if not add_cells(strip, c, lk, color_system) or x + len(c) > width:
                    ok = False
                    break
                end = x + len(c)
                if chars[x] == "" or (end < width and chars[end] == "" and c and c[-1] != ""):
                    whole.add(y)  # the span cuts a wide character the terminal has
                chars[x:end] = c
                looks[x:end] = lk
            if ok and (base is not None or None not in chars):
                new[y] = (chars, looks)
            else:  # drawn as Textual would, and not known until a whole row is drawn
                new[y] = None
                blind[y] = row_pieces
        writer = _Writer(color_system)
        touched = [y for y in pieces if 0 <= y < height]
        base_rows = old
        candidates = set(touched)
        changed = [y for y in touched if new[y] is None or new[y] != old[y]]
        if len(changed) >= 3:
            # rows are compared in pieces cut where widgets meet (a conversation, its scrollbar, a panel beside
            # it): a scrollbar thumb that moved, or a panel that did not, leaves the conversation's piece equal
            ranges = pieces_of_rows(self.chop_ends, width, height)
            fill = fill_look(new[y] for y in changed)
            scroll = find_scroll(new, old, changed, ranges, fill, model.pieces)
            if scroll is not None:
                base_rows = scrolled(writer, old, scroll, fill, width)
                candidates.update(range(scroll[0], scroll[1] + 1))
        rows = model.rows = list(base_rows)
        for y in sorted(candidates):
            if y in blind:
                for x, strip in blind[y]:
                    writer.segments(x, y, strip)
                rows[y] = None
                continue
            row = new[y]
            if row is None:  # not known, not drawn by this update: a scrolled-in blank row we cannot fill
                rows[y] = None
                continue
            before = base_rows[y]
            if before is None or y in whole:
                writer.cells(row, 0, width, y, width)
            else:
                for start, end in changed_runs(row, before, width):
                    writer.cells(row, start, end, y, width)
            rows[y] = row
        model.pieces.keep(rows)
        return writer.text()


class ModelLayoutUpdate(LayoutUpdate):
    """Textual's full update, which also tells the terminal model what every row now shows."""

    def __init__(self, strips: list[Iterable[Strip]], region: Any, terminal: TerminalModel) -> None:
        super().__init__([list(line) for line in strips], region)
        self.terminal = terminal
        self._rendered: str | None = None

    def render_segments(self, console: Console) -> str:
        if self._rendered is None:  # once: it moves the model on
            self._rendered = self._render(console)
        return self._rendered

    def _render(self, console: Console) -> str:
        """Only the cells that changed when the terminal's every row is known (a full update asked for while
        nothing else drew on it: a layer shown, a widget the size of the screen); else Textual's full write."""
        color_system = console._color_system or ColorSystem.TRUECOLOR
        model = self.terminal
        width, height = self.region.width, self.region.height
        rows = [row_of(line, width, color_system) for line in self.strips][:height]
        rows += [None] * (height - len(rows))
        known = (model.width, model.height) == (width, height) and None not in model.rows and None not in rows
        if not known or self.region.x or self.region.y:
            text = super().render_segments(console)
            model.reset(width, height)
            if not self.region.x and not self.region.y:
                model.rows = rows
            return text
        writer = _Writer(color_system)
        for y, (row, before) in enumerate(zip(rows, model.rows)):
            # every row is known here (a full update while the model knows them all): no None among them
            for start, end in changed_runs(row, before, width):  # type: ignore[arg-type]
                writer.cells(row, start, end, y, width)  # type: ignore[arg-type]
        model.rows = rows
        model.pieces.keep(rows)
        return writer.text()
