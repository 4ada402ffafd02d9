"""Around a Bash command: note the project before it runs, record what it changed after (checkpoints.py).

With inotify (tree_watch.py) only the files the kernel saw touched are looked at; without it the project is
scanned before and after. Each changed file's new content goes into the checkpoint's blob store.
"""

from __future__ import annotations

import stat
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui.agent.events import CheckpointSaved
from tui.config.special_files import read_regular_bytes

from .blobstore import BlobError
from .checkpoint_records import UNKNOWN
from .tree_watch import Changes, Signature, TreeWatch, scan_files

if TYPE_CHECKING:
    from .checkpoints import Checkpoints

#: files a Bash command's before/after scan looks at, at most (beyond it, changes are not tracked)
SCAN_LIMIT = 20_000
#: folders the scan never enters: tools' caches and version control, not the user's files
SCAN_SKIP = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        "__pycache__",
        ".venv",
        "venv",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".tox",
    }
)
#: a file Bash changed is kept only up to this size
KEEP_LIMIT = 16 * 1024 * 1024


def scan_tree(
    root: Path | str, limit: int | None = None, on_folder: Callable[[str], None] | None = None
) -> dict[str, Signature] | None:
    """(mtime, size, mode) of every regular file under `root`; None when there are more than `limit`."""
    return scan_files(str(root), SCAN_SKIP, SCAN_LIMIT if limit is None else limit, on_folder)


def watch_command(cps: Checkpoints) -> Callable[[], None]:
    """Note the project's state before a command runs; the returned function records what it changed.

    With inotify (tree_watch.py) only the files the kernel saw touched are stat-ed; without it the
    whole project is scanned before and after.
    """
    watch = watcher(cps)
    if watch is not None and watch.changes() is not None:  # what changed since the last command is not its doing

        def finished() -> None:
            try:
                record_changes(cps, watch.changes())
            except OSError as exc:
                cps.degrade(exc)

        return finished
    before = scan(cps)

    def scanned() -> None:
        try:
            bash_finished(cps, before)
        except OSError as exc:
            cps.degrade(exc)

    return scanned


def scan(cps: Checkpoints) -> dict[str, Signature] | None:
    """The project's files now, for a command that runs without inotify."""
    return scan_tree(cps.project_dir)


def bash_finished(cps: Checkpoints, before: dict[str, Signature] | None, command: str = "") -> list[str]:
    """Record the files a Bash command changed (a scan before, one now); returns their paths."""
    after = scan(cps)
    if before is None or after is None:
        return record_changes(cps, None)
    return record_changes(
        cps, {p: (before.get(p), after.get(p)) for p in before.keys() | after.keys() if before.get(p) != after.get(p)}
    )


def watcher(cps: Checkpoints) -> TreeWatch | None:
    """The project's inotify watch, started on first use; None where inotify cannot be used."""
    if cps._watch is None:
        watch = TreeWatch(str(cps.project_dir), SCAN_SKIP, SCAN_LIMIT)
        try:
            cps._watch = watch if watch.start() else None
        except OSError:
            watch.close()
            cps._watch = False
        return cps._watch or None
    return cps._watch or None


def record_changes(cps: Checkpoints, changed: Changes | None) -> list[str]:
    """Record what a command changed (path: signature before and after; None: not known); returns the paths."""
    if changed is None:
        with cps.lock:
            cps._write(
                {
                    "t": "untracked",
                    "cp": cps.current,
                    "reason": f"the project has more than {SCAN_LIMIT:,} files, so what Bash changed was not tracked",
                }
            )
        return []
    if not changed:
        return []
    paths = sorted(changed)
    with cps.lock:
        cps._write_many([_record_bash(cps, path, *changed[path]) for path in paths])  # one flush for all
        for path in paths:
            cps.known[path] = (changed[path][1], cps.known[path][1])
    cps.publish(CheckpointSaved(checkpoint=cps.current, reason="Bash", paths=tuple(paths)))
    return paths


def _record_bash(cps: Checkpoints, path: str, was: Signature | None, now_sig: Signature | None) -> dict[str, Any]:
    """The log record of one file a command changed (its new content stored)."""
    if was is None:
        before = None  # created by the command: rewinding deletes it
    else:
        sig, blob = cps.known.get(path, (None, None))
        before = blob if blob is not None and sig == was else UNKNOWN
    after: str | None = None
    inline: dict[str, str] = {}
    if now_sig is not None:
        after = UNKNOWN
        if now_sig[1] <= KEEP_LIMIT:
            try:
                data = read_regular_bytes(path)
                base = cps.blobs.get(before) if before not in (None, UNKNOWN) else None
                after = cps._put(data, base, durable=False, inline=inline)  # the file holds it already
            except (OSError, BlobError):
                pass
    record = {
        "t": "change",
        "path": path,
        "before": before,
        "after": after,
        "mode_before": stat.S_IMODE(was[2]) if was else None,
        "mode_after": stat.S_IMODE(now_sig[2]) if now_sig else None,
        "by": "Bash",
        "cp": cps.current,
    }
    return {**record, "inline": inline} if inline else record
