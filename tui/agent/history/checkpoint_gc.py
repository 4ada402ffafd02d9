"""Old checkpoints go: a session's log once the session was not used for `cleanup_period_days`, then every
blob no remaining log needs (a delta's base counts as needed). Runs once per process, on a thread."""

from __future__ import annotations

import base64
import json
import struct
import threading
import time
from pathlib import Path

from .blobstore import _DELTA
from .checkpoints import MANIFEST_SUFFIX

_started: set[Path] = set()
_lock = threading.Lock()
DAY_S = 86_400


def _names(manifest: Path) -> set[str]:
    """Every blob a checkpoint log refers to."""
    names: set[str] = set()
    try:
        lines = manifest.read_bytes().split(b"\n")
    except OSError:
        return names
    for line in lines:
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(record, dict):
            for key in ("before", "after", "messages"):
                value = record.get(key)
                if isinstance(value, str) and len(value) == 40:
                    names.add(value)
            names.update(_inline_bases(record.get("inline")))
    return names


def _inline_bases(inline: object) -> set[str]:
    """The bases of the deltas a record carries itself (their files may be gone, the bases are still needed)."""
    bases: set[str] = set()
    for stored in inline.values() if isinstance(inline, dict) else ():
        try:
            head = base64.b64decode(str(stored)[: 4 * (_DELTA.size // 3 + 1)])[: _DELTA.size]
            if head[:1] in (b"D", b"d"):
                bases.add(_DELTA.unpack(head)[1].decode())
        except (ValueError, struct.error, UnicodeDecodeError):
            continue
    return bases


def _with_bases(objects: Path, names: set[str]) -> set[str]:
    """`names` plus the blobs their deltas are built on."""
    needed, todo = set(), list(names)
    while todo:
        name = todo.pop()
        if name in needed:
            continue
        needed.add(name)
        try:
            with open(objects / name[:2] / name[2:], "rb") as f:
                head = f.read(_DELTA.size)
            if head[:1] in (b"D", b"d"):
                todo.append(_DELTA.unpack(head)[1].decode())
        except (OSError, struct.error, UnicodeDecodeError):
            continue
    return needed


def prune(folder: Path, days: int, now: float | None = None) -> tuple[int, int]:
    """Delete logs of sessions unused for `days` and blobs nothing needs; (logs, blobs) deleted."""
    now = time.time() if now is None else now
    cutoff = now - days * DAY_S
    logs = blobs = 0
    keep: set[str] = set()
    for manifest in folder.glob(f"*{MANIFEST_SUFFIX}"):
        transcript = folder.parent / (manifest.name[: -len(MANIFEST_SUFFIX)] + ".jsonl")
        try:
            last_used = max(manifest.stat().st_mtime, transcript.stat().st_mtime if transcript.exists() else 0)
            if last_used < cutoff:
                manifest.unlink()
                logs += 1
                continue
        except OSError:
            pass
        keep |= _names(manifest)
    objects = folder / "objects"
    needed = _with_bases(objects, keep)
    for blob in objects.glob("??/*"):
        name = blob.parent.name + blob.name
        try:
            if name not in needed and blob.stat().st_mtime < cutoff:
                blob.unlink()
                blobs += 1
        except OSError:
            continue
    return logs, blobs


def prune_once(folder: Path, days: int) -> None:
    """Start `prune` on a thread the first time a process opens this folder's checkpoints."""
    with _lock:
        if folder in _started or days <= 0 or not folder.is_dir():
            return
        _started.add(folder)
    threading.Thread(target=lambda: _quiet(folder, days), name="checkpoint-gc", daemon=True).start()


def _quiet(folder: Path, days: int) -> None:
    try:
        prune(folder, days)
    except OSError:  # housekeeping never bothers the session
        pass
