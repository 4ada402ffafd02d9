"""Unified diffs for previews and `cat -n` style snippets for edit results."""

from __future__ import annotations

from tui.text.wording import plural


def _lines(text: str) -> list[str]:
    return text.replace("\r\n", "\n").splitlines(keepends=True)


def unified_diff(old: str | None, new: str, display: str) -> str:
    """A unified diff from `old` (None for a new file) to `new`, with a/ b/ headers."""
    old_lines = _lines(old) if old is not None else []
    new_lines = _lines(new)
    fromfile = f"a/{display}" if old is not None else "/dev/null"
    out = []
    import difflib

    for line in difflib.unified_diff(old_lines, new_lines, fromfile, f"b/{display}", n=3):
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def numbered(lines: list[str], first_line: int) -> str:
    """`lines` as `cat -n` output: the line number, a tab, the text."""
    return "\n".join(f"{first_line + i}\t{line}" for i, line in enumerate(lines))


def snippet(text: str, changed: list[tuple[int, int]], context: int = 3, max_lines: int = 60) -> str:
    """Numbered lines around the changed line ranges (1-based, inclusive) of `text`."""
    lines = text.replace("\r\n", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines:
        return "(the file is now empty)"
    merged: list[list[int]] = []
    for start, end in sorted(changed):
        lo, hi = max(1, start - context), min(len(lines), end + context)
        if merged and lo <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    parts: list[str] = []
    shown = 0
    for lo, hi in merged:
        if shown >= max_lines:
            parts.append(f"... ({plural(len(merged) - len(parts), 'more changed region')} not shown)")
            break
        hi = min(hi, lo + max_lines - shown - 1)
        parts.append(numbered(lines[lo - 1 : hi], lo))
        shown += hi - lo + 1
    return "\n...\n".join(parts)
