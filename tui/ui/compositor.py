"""Textual's compositor, drawing for a partial update only the rows of each widget that changed, and
writing them to the terminal in fewer bytes.

For a partial update Textual renders every visible widget that overlaps the bounding box of all
dirty regions, each over its whole visible area (the box only picks the widgets). The status line
ticking at the bottom and the tool panel on the right then make a box that covers the screen, and
every widget of the conversation renders all its visible rows again, ten times a second, to write
one line and a column. Here each widget renders only the rows on which a dirty span crosses it;
what reaches the terminal is the same (the same spans, filled by the same front-most widgets).

Textual writes each segment as `ESC[<whole style>m text ESC[0m` and moves the cursor before each
piece of a line even when it is already there; `LeanChopsUpdate` sets a style only when it changes
and moves the cursor only when it must: the same cells, in about half the bytes.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Mapping, Sequence
from typing import Any

from rich.color import ColorSystem
from rich.console import Console
from rich.style import Style
from textual._compositor import ChopsUpdate, Compositor, LayoutUpdate
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widget import Widget

from .terminal_model import DiffChopsUpdate, ModelLayoutUpdate, TerminalModel


class LeanChopsUpdate(ChopsUpdate):
    """Textual's partial update, encoded with a style set only when it changes and no needless cursor moves."""

    def render_segments(self, console: Console) -> str:
        color_system = console._color_system or ColorSystem.TRUECOLOR
        out: list[str] = []
        append = out.append
        chops, chop_ends = self.chops, self.chop_ends
        cursor: tuple[int, int] | None = None
        current: str | None = None  # the SGR codes the terminal has now (None: the default)
        for y, x1, x2 in self.spans:
            for end, (x, strip) in zip(chop_ends[y], chops[y].items()):
                if strip is None or x > x2 or end <= x1:
                    continue
                if not (x2 > x >= x1 and end <= x2):
                    strip = strip.crop(0, min(end, x2) - x)
                if cursor != (x, y):
                    append(f"\x1b[{y + 1};{x + 1}H")
                for text, style, _ in strip:
                    if style is not None and style._link:  # a hyperlink: as Textual writes it
                        if current is not None:
                            append("\x1b[0m")
                            current = None
                        append(Style.render(style, text, color_system=color_system))
                        continue
                    codes = style._make_ansi_codes(color_system) if style is not None else ""
                    if codes != current:  # the same look: Textual's selection offsets differ per segment
                        append(f"\x1b[0;{codes}m" if codes else "\x1b[0m")
                        current = codes or None
                    append(text)
                cursor = (x + strip.cell_length, y)
        if current is not None:
            append("\x1b[0m")
        return "".join(out)


class RowCompositor(Compositor):
    """A compositor whose partial updates render only the dirty rows of the widgets they cross."""

    #: what the terminal shows (set by the app, shared by its screens' row compositors); None: not tracked
    terminal: TerminalModel | None = None

    def reflow_visible(self, parent: Widget, size: Size) -> set[Widget]:
        """Textual's scroll reflow, which repaints only what moved, also on the first scroll after a layout.

        A full layout leaves no map of the visible widgets, so Textual's next scroll finds every widget new
        and repaints the whole screen (header, footer, prompt and panels included). The full map it leaves
        is what is on the screen then: compared with it, only the widgets that moved are repainted.
        """
        if self._visible_map is None and self._full_map and size == self.size:
            self._visible_map = self._full_map
        return super().reflow_visible(parent, size)

    def render_full_update(self, simplify: bool = False) -> LayoutUpdate:
        if self.terminal is None or simplify:
            return super().render_full_update(simplify)
        self._dirty_regions.clear()
        chops = self._render_rows(self.size.region, None)
        return ModelLayoutUpdate([chop.values() for chop in chops], self.size.region, self.terminal)

    def render_partial_update(self) -> ChopsUpdate | None:
        update_regions = self._dirty_regions.copy()
        self._dirty_regions.clear()
        if not update_regions:
            return None
        crop = Region.from_union(list(update_regions)).intersection(self.size.region)
        spans = list(self._regions_to_spans(update_regions))
        rows: dict[int, list[tuple[int, int]]] = {}
        for y, x1, x2 in spans:
            rows.setdefault(y, []).append((x1, x2))
        chops = self._render_rows(crop, rows)
        chop_ends = [cut_set[1:] for cut_set in self.cuts]
        if self.terminal is not None:
            return DiffChopsUpdate(chops, spans, chop_ends, self.terminal, self.size)
        return LeanChopsUpdate(chops, spans, chop_ends)

    def _render_rows(
        self, crop: Region, rows: dict[int, list[tuple[int, int]]] | None
    ) -> Sequence[Mapping[int, Strip]]:
        """Chops (as Textual's `_render_chops`) for the rows in `rows` (None: every row of `crop`).

        Widgets are visited front-most first, as Textual does, and the first piece of a chop wins; but a widget
        renders only the rows where a span crosses it and some chop under it is still empty. Rows that widgets
        in front cover wholly (a container behind its children, the screen behind everything) are not rendered
        at all: the same chops, without rendering what no one sees.

        In a partial update, a chop that no span touches may be left empty or hold a widget behind the one in
        front: `ChopsUpdate` writes only the parts of chops inside the spans.
        """
        cuts = self.cuts
        chops: list[dict[int, Strip | None]] = [dict.fromkeys(cut_set[:-1]) for cut_set in cuts]
        #: per row, whether the chop starting at each cut (but the last) is filled
        filled = [[False] * (len(cut_set) - 1) for cut_set in cuts]
        crop_overlaps = crop.overlaps
        for widget, (region, clip) in self.visible_widgets.items():  # front-most first
            if not crop_overlaps(clip):
                continue
            render_region = region.intersection(clip)
            x1, y1, width, height = render_region
            if not width or not height:
                continue
            x2 = x1 + width
            needed: list[int] = []
            for y in range(max(y1, crop.y), min(y1 + height, crop.bottom)):
                if rows is not None and not any(a < x2 and b > x1 for a, b in rows.get(y, ())):
                    continue
                row_cuts = cuts[y]
                if not all(filled[y][bisect_left(row_cuts, x1) : bisect_left(row_cuts, x2)]):
                    needed.append(y)
            for top, bottom in _runs(needed):
                strips = widget.render_lines(Region(x1 - region.x, top - region.y, width, bottom - top))
                for y, strip in zip(range(top, bottom), strips):
                    row_cuts = cuts[y]
                    first = bisect_left(row_cuts, x1)
                    final_cuts = [cut for cut in row_cuts[first:] if cut <= x2]
                    chops_line, row_filled = chops[y], filled[y]
                    for index, (cut, piece) in enumerate(
                        zip(final_cuts, strip.divide([cut - x1 for cut in final_cuts[1:]])), first
                    ):
                        if not row_filled[index]:
                            chops_line[cut] = piece
                            row_filled[index] = True
        return chops  # type: ignore[return-value]


def _runs(rows: list[int]) -> list[tuple[int, int]]:
    """Ascending row numbers as (top, bottom) runs of consecutive rows."""
    runs: list[tuple[int, int]] = []
    for y in rows:
        if runs and runs[-1][1] == y:
            runs[-1] = (runs[-1][0], y + 1)
        else:
            runs.append((y, y + 1))
    return runs


def use_row_compositor(screen: Any, terminal: TerminalModel | None = None) -> None:
    """Give `screen` the row compositor (before its first layout); a no-op if Textual's internals moved.

    With `terminal`, its updates are written against that model of the terminal (terminal_model.py): the app
    must then call `track_display` for every update it displays.
    """
    compositor = getattr(screen, "_compositor", None)
    if type(compositor) is Compositor and hasattr(Compositor, "_regions_to_spans") and hasattr(Compositor, "cuts"):
        screen._compositor = RowCompositor()
        screen._compositor.terminal = terminal


def track_display(terminal: TerminalModel, renderable: Any) -> None:
    """Before an update is displayed: one the model does not follow makes it forget what the terminal shows."""
    if renderable is not None and not isinstance(renderable, (DiffChopsUpdate, ModelLayoutUpdate)):
        terminal.invalidate()
