"""What differs between two snapshot SVGs, as text a failing test prints (the HTML report stays on the CI machine)."""

from __future__ import annotations

import html
import re
from collections import defaultdict

_TEXT = re.compile(r'<text class="([^"]*)" x="([\d.]+)" y="([\d.]+)"[^>]*>(.*?)</text>')
_RECT = re.compile(r'<rect fill="([^"]*)" x="([\d.]+)" y="([\d.]+)" width="([\d.]+)"')
_STYLE = re.compile(r"\.(terminal(?:-\d+)?-r\d+)\s*\{([^}]*)\}")
#: an SVG cell's width and a row's height (Rich's export_svg at its default font size)
CELL_W, ROW_H = 12.2, 24.4


def screen_rows(svg: str) -> dict[int, list[tuple[int, str, str]]]:
    """{row: [(column, style, text), ...]}: the SVG's text fragments, each with its class resolved to its CSS."""
    styles = {name.split("-")[-1]: body.strip() for name, body in _STYLE.findall(svg)}
    rows: dict[int, list[tuple[int, str, str]]] = defaultdict(list)
    for cls, x, y, text in _TEXT.findall(svg):
        style = styles.get(cls.split("-")[-1], cls)
        rows[round(float(y) / ROW_H)].append((round(float(x) / CELL_W), style, html.unescape(text)))
    return {row: sorted(parts) for row, parts in rows.items()}


def backgrounds(svg: str) -> dict[int, list[tuple[int, int, str]]]:
    """{row: [(column, width, colour), ...]}: the SVG's background rectangles."""
    rows: dict[int, list[tuple[int, int, str]]] = defaultdict(list)
    for fill, x, y, width in _RECT.findall(svg):
        rows[round(float(y) / ROW_H)].append((round(float(x) / CELL_W), round(float(width) / CELL_W), fill))
    return {row: sorted(parts) for row, parts in rows.items()}


def line_text(parts: list[tuple[int, str, str]]) -> str:
    line = ""
    for column, _, text in parts:
        line = line.ljust(column) + text
    return line.replace("\xa0", " ").rstrip()


def screen_diff(expected: str, actual: str, limit: int = 12) -> str:
    """The rows whose text or styles differ, expected against actual (at most `limit` of them)."""
    want, got = screen_rows(expected), screen_rows(actual)
    want_bg, got_bg = backgrounds(expected), backgrounds(actual)
    out: list[str] = []
    for row in sorted(set(want) | set(got) | set(want_bg) | set(got_bg)):
        a, b = want.get(row, []), got.get(row, [])
        if a == b:
            bg_a, bg_b = want_bg.get(row, []), got_bg.get(row, [])
            if bg_a != bg_b:
                first = next(((p, q) for p, q in zip(bg_a, bg_b) if p != q), (bg_a[-1:], bg_b[-1:]))
                out.append(
                    f"row {row}: same text {line_text(a)!r}; backgrounds differ, first at {first[0]} -> {first[1]}"
                )
            continue
        if len(out) >= 3 * limit:
            out.append("… more rows differ")
            break
        ta, tb = line_text(a), line_text(b)
        if ta != tb:
            out += [f"row {row} expected: {ta!r}", f"row {row} actual:   {tb!r}"]
        else:
            changed = [(p, q) for p, q in zip(a, b) if p != q] or [(a[-1] if a else None, b[-1] if b else None)]
            out.append(f"row {row}: same text {ta!r}; styles differ, first at {changed[0][0]} -> {changed[0][1]}")
    return "\n".join(out) or "the screens' text and styles are the same (the SVGs differ elsewhere)"
