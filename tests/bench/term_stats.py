"""What a TUI sent to its terminal over a span of time: bytes, frames, full-screen clears and repaints.

Reads the records of `pty_record.py`. A frame is one synchronized update (`ESC[?2026h` … `ESC[?2026l`,
which Textual and Ink both send when the terminal supports it) or else one burst of writes; a cursor is
tracked through each frame (absolute and relative moves, newlines, erases) to know which rows it drew.
A frame that draws or erases every row is a full repaint; `ESC[2J` (and `ESC[3J`) is a full clear.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

SYNC_START = b"\x1b[?2026h"
SYNC_END = b"\x1b[?2026l"
#: writes closer together than this are one frame when the program sends no synchronized updates
BURST_GAP_S = 0.004
_TOKEN = re.compile(
    rb"\x1b\[([0-?]*)[ -/]*([@-~])"  # CSI
    rb"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"  # OSC
    rb"|\x1bP[^\x1b]*\x1b\\"  # DCS
    rb"|\x1b[()*+][0-9A-Za-z]|\x1b[@-Z\\-_=>78]"  # other escapes
    rb"|[\x00-\x1f\x7f]"  # a control character
    rb"|[^\x00-\x1f\x7f\x1b]+"  # printable text
)


@dataclass
class Frame:
    start: float
    data: bytes
    rows: set[int] = field(default_factory=set)
    clears: int = 0


def load(path: Path) -> list[tuple[float, bytes]]:
    return [(r["t"], bytes.fromhex(r["hex"])) for r in map(json.loads, path.read_text().splitlines()) if r]


def frames(chunks: list[tuple[float, bytes]]) -> list[Frame]:
    """The chunks cut into frames (synchronized updates, or bursts when there are none)."""
    data = b"".join(d for _, d in chunks)
    out: list[Frame] = []
    if SYNC_START in data:
        pos = 0
        times = _byte_times(chunks)
        while pos < len(data):
            start = data.find(SYNC_START, pos)
            if start < 0:
                start = len(data)
            if start > pos:  # anything between frames is a frame of its own
                out.append(Frame(times(pos), data[pos:start]))
            if start >= len(data):
                break
            end = data.find(SYNC_END, start)
            end = len(data) if end < 0 else end + len(SYNC_END)
            out.append(Frame(times(start), data[start:end]))
            pos = end
        return out
    last_t = float("-inf")
    for t, chunk in chunks:
        if out and t - last_t <= BURST_GAP_S:
            out[-1].data += chunk
        else:
            out.append(Frame(t, chunk))
        last_t = t
    return out


def _byte_times(chunks: list[tuple[float, bytes]]):  # type: ignore[no-untyped-def]
    offsets, t_of = [], []
    total = 0
    for t, chunk in chunks:
        offsets.append(total)
        t_of.append(t)
        total += len(chunk)

    def at(pos: int) -> float:
        import bisect

        return t_of[max(0, bisect.bisect_right(offsets, pos) - 1)]

    return at


def draw(frame: Frame, width: int, height: int, cursor: list[int]) -> None:
    """Follow the cursor through `frame`, noting the rows it prints on or erases, and full clears."""
    x, y = cursor
    for match in _TOKEN.finditer(frame.data):
        token = match.group(0)
        if token[:2] == b"\x1b[":
            params, final = match.group(1), match.group(2)
            numbers = (
                [int(p) if p.isdigit() else 0 for p in params.split(b";")]
                if params[:1] not in (b"?", b">", b"=")
                else []
            )
            n = numbers[0] if numbers and numbers[0] else 1
            if final in (b"H", b"f"):
                y = (numbers[0] if numbers and numbers[0] else 1) - 1
                x = (numbers[1] if len(numbers) > 1 and numbers[1] else 1) - 1
            elif final == b"A":
                y -= n
            elif final == b"B":
                y += n
            elif final == b"C":
                x += n
            elif final == b"D":
                x -= n
            elif final == b"E":
                y, x = y + n, 0
            elif final == b"F":
                y, x = y - n, 0
            elif final == b"G":
                x = n - 1
            elif final == b"d":
                y = n - 1
            elif final == b"J":
                mode = numbers[0] if numbers else 0
                if mode in (2, 3):
                    frame.clears += 1
                    frame.rows.update(range(height))
                elif mode == 0:
                    frame.rows.update(range(max(0, y), height))
                else:
                    frame.rows.update(range(min(height, y + 1)))
            elif final == b"K":
                frame.rows.add(y)
            y = max(0, min(height - 1, y))
            x = max(0, min(width - 1, x))
        elif token == b"\n":
            y = min(height - 1, y + 1)
        elif token == b"\r":
            x = 0
        elif token == b"\b":
            x = max(0, x - 1)
        elif token[:1] == b"\x1b" or (len(token) == 1 and token[0] < 0x20):
            continue
        else:
            frame.rows.add(y)
            x += len(token.decode("utf-8", "replace"))
            if x >= width:  # auto-wrap onto the next row
                frame.rows.update(range(y + 1, min(height, y + 1 + (x - 1) // width)))
                y = min(height - 1, y + x // width)
                x %= width
    cursor[:] = [x, y]


@dataclass
class Stats:
    bytes: int
    frames: int
    full_clears: int
    full_repaints: int


def analyse(chunks: list[tuple[float, bytes]], t0: float, t1: float, width: int, height: int) -> Stats:
    """Bytes, frames, `ESC[2J` clears and every-row repaints written between t0 and t1."""
    cursor = [0, 0]
    total = clears = repaints = count = 0
    for frame in frames(chunks):
        draw(frame, width, height, cursor)
        if not t0 <= frame.start <= t1:
            continue
        count += 1
        total += len(frame.data)
        clears += frame.clears
        repaints += len(frame.rows) >= height
    return Stats(total, count, clears, repaints)
