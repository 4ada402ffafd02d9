"""What a process's RSS is made of, for the soak (soak.py): glibc's own view of its heap, and the kernel's.

`memory()` reads, in one go: VmRSS; from /proc/self/smaps_rollup the anonymous memory (the heap, arenas,
mmapped blocks, thread stacks) against the file-backed pages (mapped libraries); from glibc's `mallinfo2()`
(summed over every arena) the bytes malloc has handed out and not got back (`in_use`), the bytes freed into
its arenas and kept there (`free`: the part of RSS no live object holds, as far as it is touched), and the
large blocks it mmapped on their own (`mmapped`). Without glibc (macOS, musl) the malloc figures are absent.
CPython's small objects (≤ 512 bytes) are not in those arenas: pymalloc mmaps 1 MiB arenas of its own and
gives one back only once every object in it is gone; `pymalloc()` reads `sys._debugmallocstats()` for them.
"""

from __future__ import annotations

import ctypes
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

MIB = 1024 * 1024


class _MallInfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            "arena",
            "ordblks",
            "smblks",
            "hblks",
            "hblkhd",
            "usmblks",
            "fsmblks",
            "uordblks",
            "fordblks",
            "keepcost",
        )
    ]


_libc: Any = None


def _glibc() -> Any:
    global _libc
    if _libc is None:
        try:
            libc = ctypes.CDLL("libc.so.6")
            libc.mallinfo2.restype = _MallInfo2
            libc.malloc_trim.argtypes = [ctypes.c_size_t]
            _libc = libc
        except (OSError, AttributeError):
            _libc = False
    return _libc


def mallinfo2() -> dict[str, float]:
    """MiB: `arena` (sbrk'd and arena heaps), `in_use`, `free` (in the arenas), `mmapped` (large blocks)."""
    libc = _glibc()
    if not libc:
        return {}
    info = libc.mallinfo2()
    return {
        "arena": info.arena / MIB,
        "in_use": info.uordblks / MIB,
        "free": info.fordblks / MIB,
        "mmapped": info.hblkhd / MIB,
    }


def smaps_rollup() -> dict[str, float]:
    """MiB: `rss`, `anon` (heap, arenas, stacks, mmapped blocks) and `file` (mapped files: libraries, .so)."""
    path = Path("/proc/self/smaps_rollup")
    if not path.exists():
        return {}
    fields: dict[str, int] = {}
    for line in path.read_text().splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0].endswith(":") and parts[1].isdigit():
            fields[parts[0][:-1]] = int(parts[1])
    return {
        "rss": fields.get("Rss", 0) / 1024,
        "anon": fields.get("Anonymous", 0) / 1024,
        "file": (fields.get("Rss", 0) - fields.get("Anonymous", 0)) / 1024,
    }


def pymalloc() -> dict[str, float]:
    """MiB: `arenas` (pymalloc's mmapped arenas), `used` (blocks objects hold), `free` (free blocks and pools)."""
    stats = getattr(sys, "_debugmallocstats", None)
    if stats is None:
        return {}
    with tempfile.TemporaryFile() as out:  # it writes to the C stderr
        sys.stderr.flush()
        saved = os.dup(2)
        try:
            os.dup2(out.fileno(), 2)
            stats()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        out.seek(0)
        text = out.read().decode(errors="replace")

    def figure(pattern: str) -> int:
        found = re.search(pattern + r"\s*=\s*([\d,]+)", text)
        return int(found.group(1).replace(",", "")) if found else 0

    arenas = re.search(r"(\d+) arenas \* (\d+) bytes/arena", text)
    pools = re.search(r"(\d+) unused pools \* (\d+) bytes", text)
    unused = int(pools.group(1)) * int(pools.group(2)) if pools else 0
    return {
        "arenas": int(arenas.group(1)) * int(arenas.group(2)) / MIB if arenas else 0.0,
        "used": figure(r"# bytes in allocated blocks") / MIB,
        "free": (figure(r"# bytes in available blocks") + unused) / MIB,
    }


def malloc_trim() -> bool:
    """Give glibc's free arena memory back to the kernel (True when it released some)."""
    libc = _glibc()
    return bool(libc and libc.malloc_trim(0))


def memory() -> dict[str, float]:
    """One reading: smaps_rollup's, mallinfo2's (`malloc_`) and pymalloc's (`pymalloc_`) figures, MiB, rounded."""
    out = dict(smaps_rollup())
    out.update({f"malloc_{k}": v for k, v in mallinfo2().items()})
    out.update({f"pymalloc_{k}": v for k, v in pymalloc().items()})
    return {k: round(v, 1) for k, v in out.items()}
