"""The terminal model finds a moved band of rows however its rows were padded, and scrolls the band that
saves the most bytes (a colourful panel beside a scrolling conversation is left where it is)."""

from __future__ import annotations

from rich.color import ColorSystem
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from tui.ui.terminal_model import row_of
from tui.ui.terminal_scroll import PieceKeys, Row, find_scroll, pieces_of_rows
from tui.ui.terminal_sgr import blank_look

WIDTH, HEIGHT = 120, 30
TEXT = Style.parse("#d8dee9 on #16181d")
PAD_FG = Style.parse("#d8dee9 on #16181d")  # padding drawn in the text's look (a live Markdown block)
PAD_BG = Style.parse("on #16181d")  # padding drawn in the background alone (a frozen reply)
THUMB = Style.parse("reverse #26446a on #16181d")
PANEL = [Style.parse(c) for c in ("bold #d8dee9 on #2a2e37", "#98e024 on #16181d", "#9e9e9e on #16181d")]


def row(text: str, pad: Style, *, thumb: bool = False, panel: int | None = None) -> Row:
    """A row: conversation text in columns 0-71, its scrollbar at 72, a border at 73, a panel at 74-119."""
    segments = [Segment(f"  {text}", TEXT), Segment(" " * (72 - 2 - len(text)), pad)]
    segments.append(Segment(" ", THUMB if thumb else PAD_BG))
    segments.append(Segment("▏", PANEL[2]))
    if panel is None:
        segments.append(Segment(" " * 46, PAD_BG))
    else:  # a line of the tool panel: several colours, block characters
        label = f" ✔ Read file{panel}.py "
        segments += [Segment(label, PANEL[1]), Segment("0.0 s ", PANEL[2]), Segment("█" * 14, PANEL[1])]
        segments.append(Segment(" " * (46 - len(label) - 6 - 14), PAD_BG))
    built = row_of([Strip(segments)], WIDTH, ColorSystem.TRUECOLOR)
    assert built is not None
    return built


def test_a_blank_shows_its_background_alone_whatever_look_pads_it() -> None:
    assert row("word1 word2", PAD_FG) == row("word1 word2", PAD_BG)
    codes = "38;2;216;222;233;48;2;22;24;29"
    assert blank_look(codes) == "48;2;22;24;29"
    assert blank_look("1;" + codes) == "48;2;22;24;29"  # bold shows nothing on a space
    assert blank_look("7;" + codes) == "7;" + codes  # reversed, the foreground is what a blank shows
    assert blank_look("4;" + codes) == "4;" + codes  # an underline shows on a space


def scene(first_line: int, pad: Style, thumb_at: int) -> list[Row | None]:
    """The screen: a header row, then conversation lines from `first_line` on, the panel on rows 1-6."""
    rows: list[Row | None] = [row("agent-tui", PAD_BG, panel=None)]
    for y in range(1, HEIGHT):
        rows.append(row(f"line {first_line + y} of the reply", pad, thumb=y == thumb_at, panel=y if y <= 6 else None))
    return rows


def test_a_band_padded_in_another_look_and_a_moved_thumb_still_scroll() -> None:
    """The head of a reply frozen (padded in its background) while the view moves up four rows, the
    scrollbar's thumb moving down: the conversation's rows are found four rows up."""
    old = scene(100, PAD_FG, thumb_at=10)
    new = scene(104, PAD_BG, thumb_at=12)
    changed = [y for y in range(HEIGHT) if new[y] != old[y]]
    ranges = pieces_of_rows([[2, 72, 73, 74, WIDTH]] * HEIGHT, WIDTH, HEIGHT)
    scroll = find_scroll(new, old, changed, ranges)
    assert scroll is not None
    _, bottom, shift = scroll
    assert shift == 4
    assert bottom == HEIGHT - 1


def test_the_band_leaves_a_colourful_panel_beside_it_unscrolled() -> None:
    """Rows 1-6 hold the tool panel, which did not move: scrolling them too would mean writing the panel
    again (colours and block characters) to save the plain text beside it, so the band starts below it."""
    old = scene(100, PAD_BG, thumb_at=20)
    new = scene(103, PAD_BG, thumb_at=20)
    changed = [y for y in range(HEIGHT) if new[y] != old[y]]
    ranges = pieces_of_rows([[2, 72, 73, 74, WIDTH]] * HEIGHT, WIDTH, HEIGHT)
    scroll = find_scroll(new, old, changed, ranges)
    assert scroll is not None
    top, _, shift = scroll
    assert shift == 3
    assert top >= 7, scroll  # the panel's rows are rewritten in their conversation part only


def test_a_band_is_scrolled_in_the_background_most_blanks_show_and_brings_them_in_known() -> None:
    """The rows a scroll brings in are blank in the current background: scrolled in the panel's background, they
    are known rows whose blanks need no writing (only the text, the scrollbar and the border beside them do)."""
    from tui.ui.terminal_model import _Writer, scrolled
    from tui.ui.terminal_scroll import fill_look

    rows = scene(100, PAD_BG, thumb_at=20)
    fill = fill_look(rows)
    assert fill == "48;2;22;24;29"
    writer = _Writer(ColorSystem.TRUECOLOR)
    after = scrolled(writer, rows, (1, HEIGHT - 1, 3), fill, WIDTH)
    assert "".join(writer.out) == f"\x1b[48;2;22;24;29m\x1b[2;{HEIGHT}r\x1b[3S\x1b[r"
    assert after[1:-3] == rows[4:]
    assert after[-3:] == [([" "] * WIDTH, [fill] * WIDTH)] * 3


def test_a_row_cut_by_one_update_is_not_cut_again_by_the_next() -> None:
    """A streaming reply scrolls the conversation a row per frame: the next update compares its new rows with the
    rows the last one left, which it had cut already. Only the new rows are cut again (each frame cut every row
    of the screen at every range: ~0.6 ms of a streaming frame, found in the long day's late frames)."""
    ranges = pieces_of_rows([[2, 72, 73, 74, WIDTH]] * HEIGHT, WIDTH, HEIGHT)
    keys = PieceKeys()
    shown = scene(100, PAD_BG, thumb_at=20)
    first = scene(101, PAD_BG, thumb_at=20)
    changed = [y for y in range(HEIGHT) if first[y] != shown[y]]
    assert find_scroll(first, shown, changed, ranges, keys=keys) == find_scroll(first, shown, changed, ranges)
    keys.keep(first)  # the terminal model now shows the new rows
    assert len(keys) <= HEIGHT
    keys.cut = 0
    # as the model builds an update's rows: the rows it does not touch are the ones shown
    second = [was if was == now else now for was, now in zip(first, scene(102, PAD_BG, thumb_at=20), strict=True)]
    changed = [y for y in range(HEIGHT) if second[y] is not first[y]]
    scroll = find_scroll(second, first, changed, ranges, keys=keys)
    assert scroll == find_scroll(second, first, changed, ranges)
    assert scroll is not None and scroll[2] == 1
    assert keys.cut <= len(changed) * len(ranges[1])  # the new rows' pieces; none of the rows shown before
