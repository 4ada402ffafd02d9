"""`@path` in a prompt: fuzzy completion over ripgrep's file list, and the mentioned files attached.

The file list is `rg --files` (it respects .gitignore, .ignore and .rgignore), plus the folders
those files live in. A mention of a file attaches its text after the prompt; a folder attaches
its listing; `@server:uri` (an MCP resource) and names that do not exist are left as typed.
"""

from __future__ import annotations

import heapq
import os
import re
import subprocess
from collections.abc import Callable
from pathlib import Path

from tui.config.special_files import read_regular_bytes

MENTION = re.compile(r'(?:^|(?<=\s))@(?:"([^"\n]+)"|([^\s"]+))')
#: `@server:uri`: an MCP resource, not ours
_RESOURCE = re.compile(r"^[A-Za-z0-9_.-]+:(?!/)")
MAX_ATTACH_BYTES = 100_000
MAX_LISTING = 200
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
        tracked = tracker().spawn(argv, cwd=project_dir, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL)
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
    word = text[start + 1:cursor]
    if any(ch.isspace() for ch in word) or word.startswith('"'):
        return None
    return start, word


def quote_mention(path: str) -> str:
    """`@path`, quoted when it holds a space."""
    return f'@"{path}"' if any(ch.isspace() for ch in path) else f"@{path}"


def mentioned_paths(text: str) -> list[str]:
    """The `@` mentions of `text`, in order (MCP `@server:uri` mentions left out)."""
    found = []
    for match in MENTION.finditer(text):
        raw = match.group(1) or match.group(2)
        raw = raw.rstrip(".,;:!?)")
        if raw and not _RESOURCE.match(raw):
            found.append(raw)
    return found


def resource_mentions(text: str) -> list[tuple[str, str]]:
    """(server, uri) of each `@server:uri` of `text` (an MCP resource), in order."""
    found = []
    for match in MENTION.finditer(text):
        raw = (match.group(1) or match.group(2)).rstrip(".,;:!?)")
        if _RESOURCE.match(raw):
            server, _, uri = raw.partition(":")
            if uri:
                found.append((server, uri))
    return found


def _attachment(path: Path, shown: str) -> str | None:
    if path.is_dir():
        entries = sorted(p.name + ("/" if p.is_dir() else "") for p in path.iterdir())
        more = f"\n… {len(entries) - MAX_LISTING} more" if len(entries) > MAX_LISTING else ""
        return f'<directory path="{shown}">\n' + "\n".join(entries[:MAX_LISTING]) + more + "\n</directory>"
    try:
        data = read_regular_bytes(path, MAX_ATTACH_BYTES + 1)
    except OSError:
        return None
    if b"\x00" in data[:8192]:
        return f'<file path="{shown}">(binary file, {path.stat().st_size:,} bytes; not attached)</file>'
    text = data[:MAX_ATTACH_BYTES].decode("utf-8", "replace")
    cut = f"\n[… cut at {MAX_ATTACH_BYTES:,} bytes]" if len(data) > MAX_ATTACH_BYTES else ""
    return f'<file path="{shown}">\n{text.rstrip()}{cut}\n</file>'


def attach_mentions(text: str, project_dir: Path, may_read: Callable[[Path], bool] | None = None) -> str:
    """`text` followed by the contents of every file (or folder) it mentions with `@`, each once."""
    blocks: list[str] = []
    seen: set[Path] = set()
    for raw in mentioned_paths(text):
        path = Path(os.path.normpath(project_dir / os.path.expanduser(raw)))
        if path in seen or not path.exists() or (may_read is not None and not may_read(path)):
            continue
        seen.add(path)
        block = _attachment(path, raw)
        if block:
            blocks.append(block)
    if not blocks:
        return text
    return text + "\n\nFiles the user attached with @:\n\n" + "\n\n".join(blocks)
