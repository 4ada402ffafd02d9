"""`@path` in a prompt: fuzzy completion over ripgrep's file list, and the mentioned files attached.

The file list is `rg --files` (it respects .gitignore, .ignore and .rgignore), plus the folders
those files live in. A mention of a file attaches its text after the prompt; a folder attaches
its listing; `@server:uri` (an MCP resource) and names that do not exist are left as typed.
"""

from __future__ import annotations

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


def _score(query: str, candidate: str) -> int | None:
    """Higher is better; None when `query`'s letters do not appear in order."""
    q, c = query.lower(), candidate.lower()
    base = c.rstrip("/").rsplit("/", 1)[-1]
    if not q:
        return 1000 - len(c)
    if base.startswith(q):
        return 5000 - len(c)
    if q in base:
        return 4000 - len(c)
    if c.startswith(q):
        return 3500 - len(c)
    if q in c:
        return 3000 - len(c)
    position, gaps = 0, 0
    for ch in q:
        found = c.find(ch, position)
        if found < 0:
            return None
        gaps += found - position
        position = found + 1
    return 1000 - gaps - len(c)


def fuzzy_matches(query: str, candidates: list[str], limit: int = 12) -> list[str]:
    """The best `limit` candidates for `query` (basename hits first, then path hits, then in-order letters)."""
    scored = [(s, c) for c in candidates if (s := _score(query, c)) is not None]
    scored.sort(key=lambda pair: (-pair[0], pair[1]))
    return [c for _, c in scored[:limit]]


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
