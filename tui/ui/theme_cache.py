"""Parsed theme files kept between runs, so a start-up with unchanged themes reads no TOML.

Reading the shipped themes cost the first frame about 7 ms, most of it `tomllib`'s import compiling
its patterns. The cache keeps each regular theme file's parsed data, keyed by its path and checked
against its modification and change times, size and inode, in one marshal file in the state folder
(the same trust as the `.pyc` files beside the code). Any mismatch, a missing, broken or unwritable
cache, or data marshal cannot hold falls back to reading the file.

What is cached was also checked whole (themes.py generates each theme's colours once, ~0.6 ms a theme), so
the cache stands only for the Textual it was checked with: another install of Textual's colour code (its
`design.py` changed) reads and checks every file again.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tui.config import paths

CACHE_NAME = "theme-cache.marshal"
#: bumped when what is stored changes shape or meaning (2: checked against Textual's colour code)
FORMAT = 2

Stamp = tuple[int, int, int, int]


def _textual_stamp() -> Stamp | None:
    """The installed Textual's colour code, which checked the cached themes."""
    from textual import design

    return _stamp(Path(design.__file__))


def cache_file() -> Path:
    """`$XDG_STATE_HOME/agent-tui/theme-cache.marshal`."""
    return paths.user_state_dir() / CACHE_NAME


def _stamp(path: Path) -> Stamp | None:
    """What must be unchanged for a cached parse to stand; None for anything but a regular file."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    return (info.st_mtime_ns, info.st_ctime_ns, info.st_size, info.st_ino)


class ThemeDataCache:
    """Parsed theme data by path, read from disk once and written back only when something was parsed."""

    def __init__(self, file: Path | None = None) -> None:
        self.file = file
        self._entries: dict[str, tuple[Stamp, Any]] | None = None
        self._changed = False
        #: files parsed (not served from the cache) since this object was made, for tests
        self.parsed = 0

    def _path(self) -> Path:
        return self.file if self.file is not None else cache_file()

    def _load(self) -> dict[str, tuple[Stamp, Any]]:
        if self._entries is None:
            self._entries = {}
            try:
                with open(self._path(), "rb") as handle:
                    stored = marshal.load(handle)
            except (OSError, EOFError, ValueError, TypeError):
                return self._entries
            if (
                isinstance(stored, dict)
                and stored.get("format") == FORMAT
                and stored.get("textual") == _textual_stamp()
                and isinstance(stored.get("files"), dict)
            ):
                self._entries = stored["files"]
        return self._entries

    def data(self, path: Path, parse: Callable[[Path], Any]) -> Any:
        """`parse(path)`, or what it returned last time if the file has not changed since."""
        stamp = _stamp(path)
        if stamp is None:  # gone, a FIFO, a device: the parser's own checks name the problem
            return parse(path)
        entries = self._load()
        hit = entries.get(str(path))
        if isinstance(hit, tuple) and len(hit) == 2 and tuple(hit[0]) == stamp:
            return hit[1]
        data = parse(path)
        self.parsed += 1
        try:
            marshal.dumps(data)
        except ValueError:  # a TOML date or time: not kept, parsed each run
            return data
        entries[str(path)] = (stamp, data)
        self._changed = True
        return data

    def save(self) -> None:
        """Write the cache if anything was parsed; a folder that cannot be written only means no cache."""
        if not self._changed or self._entries is None:
            return
        target = self._path()
        tmp = target.with_name(f"{target.name}.{os.getpid()}.tmp")
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            stored = {"format": FORMAT, "textual": _textual_stamp(), "files": self._entries}
            tmp.write_bytes(marshal.dumps(stored))
            os.replace(tmp, target)
        except OSError:
            with contextlib.suppress(OSError):  # under a file where a folder should be, even this fails
                tmp.unlink(missing_ok=True)
            return
        self._changed = False
