"""Textual's compositor, drawing for a partial update only the rows of each widget that changed.

For a partial update Textual renders every visible widget that overlaps the bounding box of all
dirty regions, each over its whole visible area (the box only picks the widgets). The status line
ticking at the bottom and the tool panel on the right then make a box that covers the screen, and
every widget of the conversation renders all its visible rows again, ten times a second, to write
one line and a column. Here each widget renders only the rows on which a dirty span crosses it;
what reaches the terminal is the same (the same spans, filled by the same front-most widgets).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from textual._compositor import ChopsUpdate, Compositor
from textual.geometry import Region
from textual.strip import Strip


class RowCompositor(Compositor):
    """A compositor whose partial updates render only the dirty rows of the widgets they cross."""

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
        chops = self._render_dirty_rows(crop, rows)
        chop_ends = [cut_set[1:] for cut_set in self.cuts]
        return ChopsUpdate(chops, spans, chop_ends)

    def _render_dirty_rows(self, crop: Region, rows: dict[int, list[tuple[int, int]]]) -> Sequence[Mapping[int, Strip]]:
        """Chops (as `_render_chops`) for the rows in `rows`, each widget rendering only the rows a span crosses.

        A chop that no span touches may be left empty or hold a widget behind the one in front:
        `ChopsUpdate` writes only the parts of chops inside the spans.
        """
        cuts = self.cuts
        chops: list[dict[int, Strip | None]] = [dict.fromkeys(cut_set[:-1]) for cut_set in cuts]
        crop_overlaps = crop.overlaps
        for widget, (region, clip) in self.visible_widgets.items():  # front-most first
            if not crop_overlaps(clip):
                continue
            render_region = region.intersection(clip)
            x1, y1, width, height = render_region
            if not width or not height:
                continue
            x2 = x1 + width
            needed = [y for y in range(max(y1, crop.y), min(y1 + height, crop.bottom))
                      if any(a < x2 and b > x1 for a, b in rows.get(y, ()))]
            if not needed:
                continue
            top, bottom = needed[0], needed[-1] + 1
            strips = widget.render_lines(Region(x1 - region.x, top - region.y, width, bottom - top))
            first_cut, last_cut = x1, x2
            wanted = set(needed)
            for y, strip in zip(range(top, bottom), strips):
                if y not in wanted:
                    continue
                chops_line = chops[y]
                final_cuts = [cut for cut in cuts[y] if last_cut >= cut >= first_cut]
                get = chops_line.get
                for cut, piece in zip(final_cuts, strip.divide([cut - x1 for cut in final_cuts[1:]])):
                    if get(cut) is None:
                        chops_line[cut] = piece
        return chops  # type: ignore[return-value]


def use_row_compositor(screen: Any) -> None:
    """Give `screen` the row compositor (before its first layout); a no-op if Textual's internals moved."""
    compositor = getattr(screen, "_compositor", None)
    if type(compositor) is Compositor and hasattr(Compositor, "_regions_to_spans") and hasattr(Compositor, "cuts"):
        screen._compositor = RowCompositor()
