"""A background command's output file with a size cap: the newest part is kept, and what was dropped is counted.

The command writes into a pipe; a thread copies the pipe into the file, and when the next chunk
would take the file past `limit` bytes it keeps only the newest half (from a line start), so the
file never passes the cap and `yes` cannot fill the disk
(it wrote 3 GB in 7 s into an uncapped file). Readers take `lock` while they read, because a cut
moves the kept bytes to the front of the file. `dropped` counts the bytes cut from the front.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from tui.text.wording import plural

MB = 1024 * 1024
#: the cap of one background task's output file (setting `background_output_limit_mb`; 0 turns it off)
DEFAULT_LIMIT_MB = 256
_READ_BYTES = 1 << 20
_F_SETPIPE_SZ = 1031  # Linux fcntl: a bigger pipe means fewer wake-ups for a chatty command


def size_text(count: int) -> str:
    """`3.2 GB`, `512 KB`, `120 bytes`: a byte count for a sentence."""
    if count >= 1024 * MB:
        return f"{count / (1024 * MB):.1f} GB"
    if count >= MB:
        return f"{count / MB:.1f} MB"
    if count >= 1024:
        return f"{count / 1024:.0f} KB"
    return plural(count, "byte")


class CappedOutput:
    """One task's output file: filled from a pipe, cut to its newest part past `limit` bytes (0: no cap)."""

    def __init__(self, path: str, limit: int) -> None:
        self.path = path
        self.limit = limit
        #: bytes cut from the front of the file so far
        self.dropped = 0
        self.lock = threading.Lock()
        self.finished = threading.Event()
        self.error = ""

    @contextmanager
    def pipe(self) -> Iterator[int]:
        """The write end of a pipe to hand the command as stdout and stderr; the copying starts once it has it."""
        read_fd, write_fd = os.pipe()
        try:
            import fcntl

            fcntl.fcntl(read_fd, _F_SETPIPE_SZ, _READ_BYTES)
        except (ImportError, OSError):
            pass
        try:
            yield write_fd
        except BaseException:
            os.close(read_fd)
            raise
        finally:
            os.close(write_fd)  # the command holds its own copy; end of file comes when its last writer exits
        threading.Thread(target=self._copy, args=(read_fd,), name="task-output", daemon=True).start()

    def note(self) -> str:
        """One sentence when output was dropped, else ''."""
        if not self.dropped:
            return ""
        return (
            f"The output passed its {size_text(self.limit)} cap (setting background_output_limit_mb): the oldest "
            f"{size_text(self.dropped)} were dropped and the file keeps the newest part."
        )

    def _copy(self, read_fd: int) -> None:
        try:
            fd = os.open(self.path, os.O_RDWR)
        except OSError as exc:
            self.error = f"the output file could not be opened ({exc.strerror or exc})"
            fd = -1
        try:
            end = os.lseek(fd, 0, os.SEEK_END) if fd >= 0 else 0
            step = min(_READ_BYTES, max(4096, self.limit // 4)) if self.limit else _READ_BYTES
            while chunk := os.read(read_fd, step):
                if self.error:
                    continue  # the file cannot take more: keep draining so the command never blocks
                try:
                    end = self._append(fd, end, chunk)
                except OSError as exc:
                    self.error = f"the output file could not be written ({exc.strerror or exc})"
        finally:
            os.close(read_fd)
            if fd >= 0:
                os.close(fd)
            self.finished.set()

    def _append(self, fd: int, end: int, chunk: bytes) -> int:
        """Write `chunk` at `end`, first cutting the file if it would pass the cap (it never does); the new end."""
        if self.limit and end + len(chunk) > self.limit:
            end = self._cut(fd, end)
        view = memoryview(chunk)
        while view:
            view = view[os.pwrite(fd, view, end + len(chunk) - len(view)) :]
        return end + len(chunk)

    def _cut(self, fd: int, end: int) -> int:
        """Keep the newest half of the cap, from the first line start in it; returns the new end."""
        start = max(0, end - self.limit // 2)
        head = os.pread(fd, min(64 * 1024, end - start), start)
        newline = head.find(b"\n")
        if 0 <= newline < len(head) - 1:
            start += newline + 1
        with self.lock:
            src, dst = start, 0
            while src < end:
                block = os.pread(fd, min(_READ_BYTES * 8, end - src), src)
                if not block:
                    break
                os.pwrite(fd, block, dst)
                src += len(block)
                dst += len(block)
            os.ftruncate(fd, dst)
            self.dropped += start
        return dst
