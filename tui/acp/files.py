"""Files through the ACP client: Read, Edit and Write use its `fs/*` methods when it offers both.

The client's copy is the editor's buffer, so the model sees unsaved changes and the editor sees
each write. Only plain text goes that way: UTF-8 without a byte-order mark, a carriage return or
a NUL, at most 1 MiB on disk. Clients read text with newline translation and write UTF-8 (Toad
does), so anything else would not come back byte for byte; it stays on the disk path, as do
files the client cannot answer for. Every write is also kept (before, after) for the client's diff.
"""

from __future__ import annotations

import threading
from collections import defaultdict, deque
from concurrent.futures import CancelledError
from pathlib import Path
from typing import Any

from tui.tools.base import ToolContext, ToolError
from tui.tools.fileio import decode_text, read_existing

MAX_PLAIN_BYTES = 1 << 20


def plain_text(data: bytes) -> str | None:
    """`data` as text when a client can carry it unchanged, else None."""
    if len(data) > MAX_PLAIN_BYTES or b"\r" in data or b"\x00" in data or data.startswith(b"\xef\xbb\xbf"):
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


class ClientFiles:
    """`SessionState.editor` for an ACP session: the client's `fs/*` when offered, and a record of every write."""

    def __init__(self, link: Any, through_client: bool) -> None:
        self.link = link
        self.through_client = through_client
        self._writes: dict[str, deque[tuple[bytes | None, bytes]]] = defaultdict(deque)
        self._lock = threading.Lock()
        self._warned = False

    def read(self, path: Path, cancel: threading.Event) -> bytes | None:
        if not self.through_client:
            return None
        try:
            with open(path, "rb") as f:
                disk = f.read(MAX_PLAIN_BYTES + 1)
        except OSError:
            return None
        if plain_text(disk) is None:
            return None
        try:
            response = self.link.call(self.link.client.read_text_file(session_id=self.link.id, path=str(path)), cancel)
        except CancelledError:  # interrupted: the disk answers at once
            return None
        except Exception as exc:  # noqa: BLE001 - the disk still answers
            self._warn("read", path, exc)
            return None
        text = getattr(response, "content", None)
        if not isinstance(text, str):
            return None
        try:
            return text.encode("utf-8")
        except UnicodeEncodeError:
            return None

    def write(self, path: Path, previous: bytes | None, data: bytes, cancel: threading.Event) -> bool:
        with self._lock:
            self._writes[str(path)].append((previous, data))
        text = plain_text(data) if self.through_client else None
        if text is None:
            return False
        try:
            self.link.call(
                self.link.client.write_text_file(session_id=self.link.id, path=str(path), content=text), cancel
            )
        except CancelledError:
            return False
        except Exception as exc:  # noqa: BLE001 - the write goes to the disk instead
            self._warn("write", path, exc)
            return False
        return True

    def take_write(self, path: str) -> tuple[str | None, str] | None:
        """The oldest write to `path` not yet shown: (text before or None for a new file, text after)."""
        with self._lock:
            queue = self._writes.get(path)
            if not queue:
                return None
            previous, data = queue.popleft()
        return (decode_text(previous)[0] if previous is not None else None), decode_text(data)[0]

    def _warn(self, what: str, path: Path, exc: Exception) -> None:
        if not self._warned:
            self._warned = True
            self.link.say(f"the client could not {what} {path} ({exc}); agent-tui uses the disk for it instead.")


def planned_change(name: str, tool_input: dict[str, Any], ctx: ToolContext) -> tuple[str, str | None, str] | None:
    """(path, text now, text after) an Edit or Write would make, computed without writing; None when it cannot."""
    from tui.tools.edit import EditTool

    try:
        if name == "Edit":
            plan = EditTool().plan(tool_input, ctx)
            return str(plan.path), plan.old_text, plan.new_text
        if (
            name == "Write"
            and isinstance(tool_input.get("file_path"), str)
            and isinstance(tool_input.get("content"), str)
        ):
            path = ctx.resolve(tool_input["file_path"])
            before = read_existing(path, ctx)
            return str(path), (decode_text(before)[0] if before is not None else None), tool_input["content"]
    except (ToolError, OSError, ValueError):
        return None
    return None
