"""A content-addressed, compressed store of file contents (the checkpoints' objects).

A blob is named by the SHA-1 of the bytes it holds. It is kept either whole (zlib) or as
a delta against another blob: the common prefix and suffix are copied from the base and
only the middle is stored, so an Edit of a large file costs a few bytes. Chains of deltas
are bounded, so reading one blob never opens more than `MAX_DEPTH` files. Every blob is
written to a temporary name, fsynced and renamed, so a `kill -9` leaves either the whole
blob or none of it; reading checks the hash, so a damaged blob is named, never used.

What is fsynced, and when: a blob that protects a file about to change (`durable=True`, the
default) is fsynced before `put` returns. A blob written with `durable=False` (the content a
file is about to hold, which the file itself holds meanwhile) is fsynced by a background
thread; `make_durable` waits for that before a log record that depends on it is flushed.
A small new delta (`put_small`) gets no file at all: the log record that names it carries its
bytes, so the log's one flush makes it durable. A fan-out folder's creation is fsynced
in its parent, once, when the folder is made for a blob that needs it.
"""

from __future__ import annotations

import base64
import hashlib
import os
import struct
import threading
import zlib
from pathlib import Path
from typing import Any

from tui.system.private_files import private_dir

#: deltas a blob may stand on before it is stored whole again
MAX_DEPTH = 24
_DELTA = struct.Struct(">c40sBQQ")  # kind, base hash, depth, prefix length, suffix length


class BlobError(OSError):
    """A blob is missing or damaged; the text names it."""


def blob_hash(data: bytes) -> str:
    return hashlib.sha1(data, usedforsecurity=False).hexdigest()


#: the hash's state is kept every this many bytes of a recent blob: an Edit of it hashes only from the change on
STATE_STEP = 65536
#: recent blobs whose hash states are kept
STATES_KEPT = 8


def hash_states(data: bytes, states: list[Any] | None = None) -> tuple[str, list[Any]]:
    """`blob_hash(data)` and the hash's state at every `STATE_STEP` bytes, resuming from `states` (a prefix's).

    SHA-1 reads its input in order, so the state after a prefix two contents share is the same for both.
    """
    states = list(states or [hashlib.sha1(usedforsecurity=False)])
    view = memoryview(data)
    at = (len(states) - 1) * STATE_STEP
    h = states[-1].copy()
    while at < len(data):
        h.update(view[at : at + STATE_STEP])
        at += STATE_STEP
        if at < len(data):
            states.append(h.copy())
    return h.hexdigest(), states


_CHUNK = 16384
#: a delta's middle shorter than this is stored as it is (compressing it costs more than it saves)
RAW_MIDDLE = 1024
#: a new blob at most this big (stored) travels inside the log record that names it (put_small)
INLINE = 8192


def _common_prefix(a: bytes, b: bytes) -> int:
    """Length of the common prefix: 4 KB slices compared until one differs, then bisection inside it."""
    limit = min(len(a), len(b))
    start = 0
    while start < limit and a[start : start + _CHUNK] == b[start : start + _CHUNK]:
        start = min(start + _CHUNK, limit)
    lo, hi = start, min(start + _CHUNK, limit)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[start:mid] == b[start:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _common_suffix(a: bytes, b: bytes, limit: int) -> int:
    """Length of the common suffix, at most `limit`, found the same way from the end."""
    la, lb = len(a), len(b)
    n = 0
    while n < limit and a[max(la - n - _CHUNK, la - limit) : la - n] == b[max(lb - n - _CHUNK, lb - limit) : lb - n]:
        n = min(n + _CHUNK, limit)
    lo, hi = n, min(n + _CHUNK, limit)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[la - mid : la - n] == b[lb - mid : lb - n]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _fsync_file(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return  # gone (pruned) or unreadable: nothing left to flush
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


class BlobStore:
    """Blobs under `root` (two-level fan-out like git), or in memory when `root` is None."""

    def __init__(self, root: Path | None) -> None:
        self.root = root
        self._memory: dict[str, bytes] = {}
        #: small blobs carried by log records (base64), read when their file is missing
        self.logged: dict[str, str] = {}
        self._depth: dict[str, int] = {}
        #: hash states of recent blobs (hash_states), so the next version of a file is hashed from its change on
        self._states: dict[str, list[Any]] = {}
        #: set when `root` cannot be written: new blobs stay in memory, old ones are still read from disk
        self.memory_only = root is None
        #: fan-out folders known to exist (a mkdir per blob costs a journal wait on a busy disk)
        self._folders: set[str] = set()
        #: blobs written but not fsynced yet (the flusher thread's queue)
        self._pending: dict[str, Path] = {}
        self._flush_lock = threading.Lock()
        self._wake = threading.Condition(self._flush_lock)
        self._flusher: threading.Thread | None = None
        self._flushing: str | None = None

    def _path(self, name: str) -> Path:
        assert self.root is not None
        return self.root / name[:2] / name[2:]

    def has(self, name: str) -> bool:
        if name in self._memory or name in self.logged:
            return True
        return self.root is not None and self._path(name).exists()

    def put(
        self,
        data: bytes,
        base: bytes | None = None,
        base_name: str | None = None,
        name: str | None = None,
        durable: bool = True,
    ) -> str:
        """Store `data` (as a delta against `base`, named `base_name`, when that saves space); returns its name.

        `name` may be given when the caller knows the hash already (the content agent-tui itself wrote);
        `durable=False` leaves the fsync to the background flusher (see the module's docstring).
        """
        return self.put_small(data, base, base_name, name, durable, inline=0)[0]

    def put_small(
        self,
        data: bytes,
        base: bytes | None = None,
        base_name: str | None = None,
        name: str | None = None,
        durable: bool = True,
        inline: int = INLINE,
    ) -> tuple[str, bytes | None]:
        """`put`, also returning what was stored when it is a new delta of at most `inline` bytes.

        The caller's log record then carries those bytes and its flush makes them durable: no blob
        file is made (`logged` keeps the record's copy; loading the log fills it again).
        """
        prefix = _common_prefix(base, data) if base is not None else 0
        if name is None:
            known = self._states.get(base_name or "") if base is not None else None
            shared = known[: prefix // STATE_STEP + 1] if known else None
            name, states = hash_states(data, shared)
            self._states.pop(name, None)
            self._states[name] = states
            while len(self._states) > STATES_KEPT:
                del self._states[next(iter(self._states))]
        if self.has(name):
            if durable:
                self.make_durable([name])
            return name, None
        stored = self._encode(data, base, base_name, prefix)
        if len(stored) <= inline and stored[:1] in (b"d", b"D"):
            self._depth[name] = _DELTA.unpack(stored[: _DELTA.size])[2]
            self.logged[name] = base64.b64encode(stored).decode("ascii")
            return name, stored
        self._store(name, stored, durable)
        return name, None

    def _store(self, name: str, stored: bytes, durable: bool) -> None:
        self._depth[name] = _DELTA.unpack(stored[: _DELTA.size])[2] if stored[:1] in (b"D", b"d") else 0
        if self.memory_only or self.root is None:
            self._memory[name] = stored
            return
        path = self._path(name)
        self._folder(path.parent, durable)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
        try:
            os.write(fd, stored)
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
        if not durable:
            self._queue(name, path)

    def _folder(self, folder: Path, durable: bool) -> None:
        """Make the fan-out folder once; its new entry in the parent is fsynced now, or by the flusher."""
        key = str(folder)
        if key in self._folders:
            return
        try:
            folder.mkdir(mode=0o700)
        except FileExistsError:
            self._folders.add(key)
            return
        except FileNotFoundError:
            private_dir(folder)
        self._folders.add(key)
        if durable:
            _fsync_file(folder.parent)
        else:
            self._queue(f"/{key}", folder.parent)

    # --- deferred fsyncs -------------------------------------------------------------------

    def _queue(self, name: str, path: Path) -> None:
        with self._wake:
            self._pending[name] = path
            if self._flusher is None or not self._flusher.is_alive():
                self._flusher = threading.Thread(target=self._flush_loop, name="blob-fsync", daemon=True)
                self._flusher.start()
            self._wake.notify()

    def _flush_loop(self) -> None:
        while True:
            with self._wake:
                if not self._pending and not self._wake.wait(timeout=5.0):
                    self._flusher = None
                    return
                if not self._pending:
                    continue
                name, path = next(iter(self._pending.items()))
                del self._pending[name]  # queued again while it is flushed: flushed again after
                self._flushing = name
            _fsync_file(path)
            with self._wake:
                self._flushing = None
                self._wake.notify_all()

    def flush_later(self, path: Path) -> None:
        """Have the flusher fsync another file soon (a log whose record did not need to wait for it)."""
        self._queue(f"/{path}", path)

    def make_durable(self, names: list[str | None]) -> None:
        """Fsync now any of `names` still waiting for the background flush (a record is about to name them)."""
        for name in names:
            with self._wake:
                while name and name == self._flushing:
                    self._wake.wait()
                path = self._pending.pop(name, None) if name else None
            if path is not None:
                _fsync_file(path)

    def _encode(self, data: bytes, base: bytes | None, base_name: str | None, prefix: int) -> bytes:
        if base is not None and len(data) > 256:
            base_name = base_name or blob_hash(base)
            depth = self._depth_of(base_name)
            if depth is not None and depth < MAX_DEPTH:
                suffix = _common_suffix(base, data, min(len(base), len(data)) - prefix)
                middle = data[prefix : len(data) - suffix]
                if len(middle) < len(data) // 2:
                    kind = b"d" if len(middle) < RAW_MIDDLE else b"D"
                    header = _DELTA.pack(kind, base_name.encode(), depth + 1, prefix, suffix)
                    return header + (middle if kind == b"d" else zlib.compress(middle, 1))
        return b"F" + zlib.compress(data, 1)

    def _depth_of(self, name: str) -> int | None:
        """How many deltas `name` stands on (0 = whole); None when it is not stored."""
        if name in self._depth:
            return self._depth[name]
        try:
            raw = self._raw(name)
        except BlobError:
            return None
        depth = _DELTA.unpack(raw[: _DELTA.size])[2] if raw[:1] in (b"D", b"d") else 0
        self._depth[name] = depth
        return depth

    def _raw(self, name: str) -> bytes:
        if name in self._memory:
            return self._memory[name]
        if name in self.logged:
            return base64.b64decode(self.logged[name])
        if self.root is None:
            raise BlobError(f"checkpoint blob {name[:12]} is missing")
        try:
            with open(self._path(name), "rb") as f:
                return f.read()
        except FileNotFoundError:
            raise BlobError(f"checkpoint blob {name[:12]} is missing") from None

    def get(self, name: str) -> bytes:
        """The bytes named `name`; BlobError when the blob (or a base it needs) is missing or damaged."""
        raw = self._raw(name)
        try:
            if raw[:1] in (b"D", b"d"):
                _, base_name, _depth, prefix, suffix = _DELTA.unpack(raw[: _DELTA.size])
                base = self.get(base_name.decode())
                middle = zlib.decompress(raw[_DELTA.size :]) if raw[:1] == b"D" else raw[_DELTA.size :]
                data = base[:prefix] + middle + (base[len(base) - suffix :] if suffix else b"")
            elif raw[:1] == b"F":
                data = zlib.decompress(raw[1:])
            else:
                raise ValueError("unknown kind")
        except (zlib.error, struct.error, ValueError, UnicodeDecodeError):
            raise BlobError(f"checkpoint blob {name[:12]} is damaged") from None
        if blob_hash(data) != name:
            raise BlobError(f"checkpoint blob {name[:12]} is damaged")
        return data
