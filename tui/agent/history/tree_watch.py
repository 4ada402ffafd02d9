"""What changed under a project while a command ran, without stat-ing every file twice.

A full scan costs one `lstat` per file (about 6 µs each on a busy VM, so 30 ms for 5,000 files,
and a command needs one before and one after). Instead, the first command scans once and puts
an inotify watch on every folder the scan enters; from then on the kernel names the paths that
were touched, and only those are stat-ed again. New folders are watched and scanned as they
appear; a folder removed or moved away marks everything under it. When the kernel's event
queue overflows, the watch is rebuilt from a full scan and compared with what it knew, so no
change is missed. Linux only: elsewhere (or without free watches) `TreeWatch.start` fails and
the caller scans before and after, as before.
"""

from __future__ import annotations

import os
import stat
import struct
import threading
from collections.abc import Callable
from typing import Any

Signature = tuple[int, int, int]  # mtime_ns, size, mode
Changes = dict[str, tuple[Signature | None, Signature | None]]  # path: (before, after)

_MODIFY, _ATTRIB, _CLOSE_WRITE = 0x2, 0x4, 0x8
_MOVED_FROM, _MOVED_TO, _CREATE, _DELETE = 0x40, 0x80, 0x100, 0x200
_DELETE_SELF, _MOVE_SELF, _OVERFLOW, _IGNORED, _ISDIR = 0x400, 0x800, 0x4000, 0x8000, 0x40000000
_ONLYDIR, _DONT_FOLLOW, _EXCL_UNLINK = 0x01000000, 0x02000000, 0x04000000
_MASK = (
    _MODIFY
    | _ATTRIB
    | _CLOSE_WRITE
    | _MOVED_FROM
    | _MOVED_TO
    | _CREATE
    | _DELETE
    | _DELETE_SELF
    | _MOVE_SELF
    | _ONLYDIR
    | _DONT_FOLLOW
    | _EXCL_UNLINK
)
_NONBLOCK, _CLOEXEC = 0o4000, 0o2000000
_EVENT = struct.Struct("iIII")  # wd, mask, cookie, name length

_libc: Any = None


def _lib() -> Any:
    """libc through ctypes, loaded on the first command (ctypes costs a few ms to import)."""
    global _libc
    if _libc is None:
        import ctypes

        _libc = ctypes.CDLL(None, use_errno=True)  # the process's own symbols: libc's inotify calls
    return _libc


def _errno() -> int:
    import ctypes

    return ctypes.get_errno()


class WatchUnavailable(OSError):
    """inotify is missing, or out of instances or watches."""


def signature(path: str) -> Signature | None:
    """(mtime, size, mode) of a regular file; None for anything else or nothing."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_mode) if stat.S_ISREG(st.st_mode) else None


def scan_files(
    root: str, skip: frozenset[str], limit: int, on_folder: Callable[[str], None] | None = None
) -> dict[str, Signature] | None:
    """(mtime, size, mode) of every regular file under `root`; None when there are more than `limit`.

    `on_folder` is called with each folder below `root` before it is listed (so a watch on it misses nothing).
    """
    out: dict[str, Signature] = {}
    stack = [root]
    while stack:
        folder = stack.pop()
        try:
            entries = os.scandir(folder)
        except OSError:
            continue
        with entries:
            for entry in entries:
                try:
                    if entry.is_dir(follow_symlinks=False):
                        if entry.name not in skip:
                            if on_folder is not None:
                                on_folder(entry.path)
                            stack.append(entry.path)
                        continue
                    if not entry.is_file(follow_symlinks=False):
                        continue
                    st = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                out[entry.path] = (st.st_mtime_ns, st.st_size, st.st_mode)
                if len(out) > limit:
                    return None
    return out


class TreeWatch:
    """The signatures of every file under `root` (folders named in `skip` left out), kept current by inotify."""

    def __init__(self, root: str, skip: frozenset[str], limit: int) -> None:
        self.root = root
        self.skip = skip
        self.limit = limit
        self.sigs: dict[str, Signature] = {}
        self._fd = -1
        self._folders: dict[int, str] = {}  # watch descriptor: folder
        self.lock = threading.Lock()

    # --- setting up ----------------------------------------------------------------------------

    def start(self) -> bool:
        """Scan the tree and watch its folders; False when it has more than `limit` files."""
        try:
            fd = _lib().inotify_init1(_NONBLOCK | _CLOEXEC)
        except (AttributeError, OSError):  # not Linux
            raise WatchUnavailable("inotify is not available") from None
        if fd < 0:
            raise WatchUnavailable(_errno(), "inotify is not available")
        self.close()
        self._fd = fd
        self._folders = {}
        self._watch(self.root)
        sigs = scan_files(self.root, self.skip, self.limit, self._watch)
        if sigs is None:
            self.close()
            return False
        self.sigs = sigs
        return True

    def _watch(self, folder: str) -> None:
        wd = _lib().inotify_add_watch(self._fd, os.fsencode(folder), _MASK)
        if wd < 0:
            err = _errno()
            if err in (2, 20, 13):  # ENOENT, ENOTDIR, EACCES: gone already, or unreadable (the scan skips it too)
                return
            raise WatchUnavailable(err, f"cannot watch {folder}: {os.strerror(err)}")
        self._folders[wd] = folder

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __del__(self) -> None:
        self.close()

    # --- reading what changed ------------------------------------------------------------------

    def changes(self) -> Changes | None:
        """The files changed since the last call, with their signatures before and now; None past `limit`."""
        with self.lock:
            if self._fd < 0:
                return None
            dirty, overflow = self._drain()
            if overflow:
                old = self.sigs
                if not self.start():
                    return None
                return {
                    p: (old.get(p), self.sigs.get(p))
                    for p in old.keys() | self.sigs.keys()
                    if old.get(p) != self.sigs.get(p)
                }
            out: Changes = {}
            for path in dirty:
                was, now = self.sigs.get(path), signature(path)
                if was != now:
                    out[path] = (was, now)
                    if now is None:
                        del self.sigs[path]
                    else:
                        self.sigs[path] = now
            if len(self.sigs) > self.limit:
                self.close()
                return None
            return out

    def _drain(self) -> tuple[set[str], bool]:
        """Read every queued event: the paths to stat again, and whether events were lost."""
        dirty: set[str] = set()
        new_folders: list[str] = []
        gone_folders: list[str] = []
        while True:
            try:
                buf = os.read(self._fd, 65536)
            except BlockingIOError:
                break
            at = 0
            while at + _EVENT.size <= len(buf):
                wd, mask, _cookie, size = _EVENT.unpack_from(buf, at)
                name = buf[at + _EVENT.size : at + _EVENT.size + size].rstrip(b"\0")
                at += _EVENT.size + size
                if mask & _OVERFLOW:
                    return dirty, True
                folder = self._folders.get(wd)
                if mask & _IGNORED:
                    self._folders.pop(wd, None)
                if folder is None or not name:
                    if folder == self.root and mask & (_DELETE_SELF | _MOVE_SELF):
                        return dirty, True  # the project itself went away: start over
                    continue
                path = os.path.join(folder, os.fsdecode(name))
                if not mask & _ISDIR:
                    dirty.add(path)
                elif os.fsdecode(name) not in self.skip:
                    if mask & (_CREATE | _MOVED_TO):
                        new_folders.append(path)
                    if mask & (_DELETE | _MOVED_FROM):
                        gone_folders.append(path)
        for folder in gone_folders:
            prefix = folder + os.sep
            dirty.update(p for p in self.sigs if p.startswith(prefix))
            for wd in [wd for wd, f in self._folders.items() if f == folder or f.startswith(prefix)]:
                _lib().inotify_rm_watch(self._fd, wd)
                self._folders.pop(wd, None)
        for folder in new_folders:
            if os.path.isdir(folder) and not os.path.islink(folder):
                self._watch(folder)
                found = scan_files(folder, self.skip, self.limit, self._watch)
                if found is None:
                    return dirty, True
                dirty.update(found)
        return dirty, False
