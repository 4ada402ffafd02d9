"""One append-only JSONL file per session, flushed per record (docs/time-travel-and-replay.md).

Line kinds: `session` (header), `message` (each API message as appended to the
history, in order: resuming replays exactly these), `event` (loop events without
per-token deltas), `request` (each request body minus its messages), `image_data` (a
picture's bytes, once; records refer to it). A failure to write (full disk, unwritable
folder) turns the writer off and is reported once.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tui.agent.events import BlockDelta, Event, McpMessage, RequestSent, ToolOutput
from tui.config.special_files import SpecialFileError, check_regular
from tui.system.private_files import open_private
from tui.text.redact import redact

from .transcript_images import may_hold_image, pack

#: per-token and per-output-chunk events are not written (the messages and results hold them), nor MCP traffic
SKIPPED_EVENTS = (BlockDelta, ToolOutput, McpMessage)


def project_slug(project_dir: Path) -> str:
    """A folder name for a project: its path with separators replaced."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", str(project_dir.resolve())).strip("-") or "root"


def new_session_id() -> str:
    return _dt.datetime.now().strftime("%Y%m%d-%H%M%S-") + os.urandom(3).hex()


def sessions_folder(base: Path, project_dir: Path) -> Path:
    return base / "projects" / project_slug(project_dir)


def lock_file(handle: Any) -> bool:
    """Take an exclusive advisory lock on an open session file; False when another owner holds it."""
    try:
        import fcntl
    except ImportError:  # no flock on this platform: one process per file is then up to the user
        return True
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except OSError:
        return False


def seal_partial_line(path: Path, handle: Any) -> None:
    """End a half-written last line (a killed writer) so the next record starts on its own line."""
    try:
        with open(path, "rb") as reader:
            reader.seek(0, os.SEEK_END)
            if reader.tell() == 0:
                return
            reader.seek(-1, os.SEEK_END)
            if reader.read(1) == b"\n":
                return
        handle.write("\n")
        handle.flush()
    except OSError:
        pass


class Transcript:
    """Writes one session's JSONL file; thread-safe; never raises on I/O errors."""

    def __init__(
        self,
        path: Path,
        on_error: Callable[[str], None] = lambda msg: None,
        on_lost: Callable[[str], None] | None = None,
    ) -> None:
        self.path = path
        self._on_error = on_error
        #: called (outside the lock) when this session's own file vanished or cannot be written;
        #: without it such a failure is reported through on_error like any other
        self._on_lost = on_lost
        self._lock = threading.Lock()
        self._file: Any = None
        self.failed = False
        self.locked_elsewhere = False
        self.lost: str | None = None
        self._header: dict[str, Any] | None = None
        #: hashes of the pictures this file holds already (an `image_data` record each)
        self.images_written: set[str] = set()

    def _open(self) -> bool:
        if self._file is not None:
            return True
        if self.failed:
            return False
        existed = self.path.exists()
        try:
            # O_APPEND: each line is one write; two processes never share a session file
            if existed:
                check_regular(self.path)  # a FIFO here would block the open below
            self._file = open_private(self.path, "a", encoding="utf-8")  # 0600 in a 0700 folder; held until close()
        except OSError as exc:
            if existed and self._on_lost is not None and not isinstance(exc, SpecialFileError):
                self.failed = True
                self.lost = f"cannot be written ({exc.strerror or exc})"
                return False
            self._fail(exc)
            return False
        if not lock_file(self._file):
            self._file.close()
            self._file = None
            self.failed = True
            self.locked_elsewhere = True
            self._on_error(
                f"Another agent-tui process is writing this session ({self.path}); this one goes on unsaved."
            )
            return False
        seal_partial_line(self.path, self._file)
        if self._header is not None:
            header, self._header = self._header, None
            self._file.write(redact(json.dumps(header, ensure_ascii=False)) + "\n")
        return True

    def _fail(self, exc: OSError) -> None:
        self.failed = True
        self._file = None
        self._on_error(
            f"The transcript could not be written ({self.path}): {exc.strerror or exc}. The session goes on unsaved."
        )

    def write(self, record: dict[str, Any]) -> None:
        dumped = json.dumps(record, ensure_ascii=False, default=str)
        image = may_hold_image(dumped)
        line = "" if image else redact(dumped) + "\n"  # no URL credentials on disk
        with self._lock:
            lines = [line]
            if image:  # a picture's bytes go in once, its references everywhere (transcript_images.py)
                new, record = pack(record, self.images_written)
                lines = [json.dumps(data) + "\n" for data in new]  # base64 only: nothing to redact
                lines.append(redact(json.dumps(record, ensure_ascii=False, default=str)) + "\n")
            if self._open() and not self._vanished():
                try:
                    try:
                        self._file.write("".join(lines))
                    except UnicodeEncodeError:  # a lone surrogate: written escaped, as valid JSON
                        self._file.write("".join(lines[:-1]) + redact(json.dumps(record, default=str)) + "\n")
                    self._file.flush()
                except OSError as exc:
                    self._close_quietly()
                    self._fail(exc)
            lost, report = self.lost, self.lost is not None and self._on_lost is not None and not self._reported
            self._reported = self._reported or report
        if report and lost:
            self._on_lost(lost)  # type: ignore[misc]

    _reported = False

    def _vanished(self) -> bool:
        """True (and the writer off) once the file was deleted or replaced under us: writes would go nowhere."""
        if self._on_lost is None:
            return False
        try:
            mine, now = os.fstat(self._file.fileno()), os.stat(self.path)
            gone = (mine.st_dev, mine.st_ino) != (now.st_dev, now.st_ino)
        except FileNotFoundError:
            gone = True
        except OSError:
            return False
        if gone:
            self._close_quietly()
            self.failed = True
            self.lost = "was deleted or replaced"
        return gone

    def _close_quietly(self) -> None:
        try:
            self._file.close()
        except OSError:
            pass
        self._file = None

    def header(self, session_id: str, project_dir: Path, model: str) -> None:
        """Set the first line; the file is created lazily, with the first record after it."""
        self._header = {
            "type": "session",
            "session_id": session_id,
            "project_dir": str(project_dir),
            "model": model,
            "created": _dt.datetime.now().isoformat(timespec="seconds"),
            "pid": os.getpid(),
        }

    def fork_of(self, session_id: str) -> None:
        """Name, in the header still to be written, the session this one was forked from (for /resume's tree)."""
        if self._header is not None and session_id:
            self._header["forked_from"] = session_id

    def message(self, message: dict[str, Any]) -> None:
        self.write({"type": "message", "message": message})

    def event(self, event: Event) -> None:
        if isinstance(event, SKIPPED_EVENTS):
            return
        if isinstance(event, RequestSent):
            body = {k: v for k, v in event.body.items() if k != "messages"}
            body["messages_count"] = len(event.body.get("messages", ()))
            self.write(
                {
                    "type": "request",
                    "iteration": event.iteration,
                    "attempt": event.attempt,
                    "ts": event.ts,
                    "body": body,
                }
            )
            return
        self.write({"type": "event", "event": event.to_dict()})

    def close(self) -> None:
        with self._lock:
            if self._file is not None:
                try:
                    self._file.close()
                except OSError:
                    pass
                self._file = None
