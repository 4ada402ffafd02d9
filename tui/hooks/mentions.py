"""`@path` in a prompt: fuzzy completion over ripgrep's file list.

The file list is `rg --files` (it respects .gitignore, .ignore and .rgignore), plus the folders
those files live in. What a mention attaches, and whether it may, is `tui/tools/attachments.py`.
"""

from __future__ import annotations

import heapq
import re
import subprocess
from pathlib import Path

from tui.tools.attachments import MENTION, mentioned_paths

__all__ = ["MENTION", "fuzzy_matches", "mention_at", "mentioned_paths", "project_files", "quote_mention"]

MAX_FILES = 50_000
LIST_TIMEOUT_S = 10.0


def project_files(project_dir: Path, limit: int = MAX_FILES) -> list[str]:
    """Files and folders (`dir/`) of the project as ripgrep lists them, relative, sorted; [] without rg."""
    from tui.tools.processes import tracker
    from tui.tools.ripgrep import find_rg

    rg = find_rg()
    if rg is None:
        return []
    argv = [rg, "--files", "--hidden", "--glob", "!.git/", "--max-depth", "25"]
    try:
        tracked = tracker().spawn(
            argv, cwd=project_dir, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
    except OSError:
        return []
    try:
        out, _ = tracked.popen.communicate(timeout=LIST_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        tracker().kill(tracked)
        out = b""
    finally:
        tracker().release(tracked)
    files = [line for line in out.decode("utf-8", "surrogateescape").splitlines() if line][:limit]
    folders = {str(Path(f).parent) + "/" for f in files if "/" in f}
    for folder in list(folders):  # every ancestor too: `src/` for `src/pkg/a.py`
        parts = folder.rstrip("/").split("/")
        folders.update("/".join(parts[:i]) + "/" for i in range(1, len(parts)))
    return sorted(folders) + sorted(files)


def fuzzy_matches(query: str, candidates: list[str], limit: int = 12, lowered: list[str] | None = None) -> list[str]:
    """The best `limit` candidates for `query`: a name that starts with it, then names and paths holding it,
    then paths holding its letters in order, fewest gaps first; shorter paths first within a tier.

    One regular expression finds the in-order letters (no backtracking, in C), so a keystroke over
    50,000 paths costs milliseconds; pass `lowered` (the candidates lowercased, once) to save more.
    """
    q = query.lower()
    low = lowered if lowered is not None else [c.lower() for c in candidates]
    if not q:
        ranked = sorted(range(len(candidates)), key=lambda i: (len(low[i]), candidates[i]))
        return [candidates[i] for i in ranked[:limit]]
    first = re.escape(q[0])
    pattern = re.compile(f"[^{first}]*({first})" + "".join(f"[^{re.escape(ch)}]*{re.escape(ch)}" for ch in q[1:]))
    scored: list[tuple[int, int, str]] = []
    for index, name in enumerate(low):
        found = pattern.match(name)
        if found is None:
            continue
        base = name.rstrip("/").rpartition("/")[2]
        if base.startswith(q):
            tier = 0
        elif q in base:
            tier = 1
        elif q in name:
            tier = 2
        else:
            tier = 3 + found.end() - found.start(1) - len(q)  # the gaps between the letters
        scored.append((tier, len(name), candidates[index]))
    return [c for _, _, c in heapq.nsmallest(limit, scored)]


def mention_at(text: str, cursor: int) -> tuple[int, str] | None:
    """(start, query) of the `@word` the cursor ends, or None: what the completion menu completes."""
    start = text.rfind("@", 0, cursor)
    if start < 0 or (start > 0 and not text[start - 1].isspace()):
        return None
    word = text[start + 1 : cursor]
    if any(ch.isspace() for ch in word) or word.startswith('"'):
        return None
    return start, word


def quote_mention(path: str) -> str:
    """`@path`, quoted when it holds a space."""
    return f'@"{path}"' if any(ch.isspace() for ch in path) else f"@{path}"
