"""Images in a session file, stored once each: the bytes in one `image_data` record, references elsewhere.

A picture's base64 would otherwise be written with every record that holds its message again
(the prompt, each `merge_user`, a `history` or `compaction`, the TurnStarted event): megabytes
per record. The writer puts the bytes in an `image_data` record the first time it meets them and
a reference (`{"type": "transcript_image", "sha1": …}` as the block's source) everywhere; readers
put the bytes back as they go, so resume, replay and export see the blocks exactly as sent.
"""

from __future__ import annotations

import hashlib
from typing import Any

#: the record that holds one picture's base64
DATA_RECORD = "image_data"
#: the source type of a reference to it
REF_SOURCE = "transcript_image"
#: what a JSON line holds when some image block may be in it (json.dumps' default separators)
_MARK = '"type": "image"'


def may_hold_image(line: str) -> bool:
    """True when a JSON line (as json.dumps writes it) may hold an image block; cheap enough for every record."""
    return _MARK in line


def pack(record: dict[str, Any], written: set[str]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The `image_data` records still to write before `record`, and `record` with each base64 image replaced by
    a reference; `written` gains the pictures' hashes."""
    new: list[dict[str, Any]] = []

    def swap(value: Any) -> Any:
        if isinstance(value, (list, tuple)):  # an event's tuple is a list in JSON
            return [swap(item) for item in value]
        if not isinstance(value, dict):
            return value
        source = value.get("source")
        if (
            value.get("type") == "image"
            and isinstance(source, dict)
            and source.get("type") == "base64"
            and isinstance(source.get("data"), str)
        ):
            data = source["data"]
            digest = hashlib.sha1(data.encode("ascii", "replace"), usedforsecurity=False).hexdigest()
            if digest not in written:
                written.add(digest)
                new.append({"type": DATA_RECORD, "sha1": digest, "media_type": source.get("media_type"), "data": data})
            ref = {"type": REF_SOURCE, "sha1": digest, "media_type": source.get("media_type")}
            return {**value, "source": ref}
        return {key: swap(item) for key, item in value.items()}

    return new, swap(record)


class StoredImages:
    """A reader's pictures so far: `fill` keeps each `image_data` record and puts the bytes back into references.

    `strict`: a reference to a picture not read (a damaged file) is an error; otherwise it stays a reference
    (a listing that read only the head of a file needs no pictures).
    """

    def __init__(self, strict: bool = True) -> None:
        self.data: dict[str, str] = {}
        self.strict = strict

    def fill(self, line: bytes, record: Any) -> Any:
        """`record` (parsed from `line`) with its references filled; ValueError for a reference to no picture."""
        if not isinstance(record, dict):
            return record
        if record.get("type") == DATA_RECORD:
            if isinstance(record.get("sha1"), str) and isinstance(record.get("data"), str):
                self.data[record["sha1"]] = record["data"]
            return record
        if REF_SOURCE.encode() not in line:
            return record
        return self._filled(record)

    def _filled(self, value: Any) -> Any:
        if isinstance(value, (list, tuple)):
            return [self._filled(item) for item in value]
        if not isinstance(value, dict):
            return value
        source = value.get("source")
        if value.get("type") == "image" and isinstance(source, dict) and source.get("type") == REF_SOURCE:
            data = self.data.get(str(source.get("sha1")))
            if data is None and not self.strict:
                return value
            if data is None:
                raise ValueError(f"image {source.get('sha1')} is not in the session file")
            return {**value, "source": {"type": "base64", "media_type": source.get("media_type"), "data": data}}
        return {key: self._filled(item) for key, item in value.items()}


#: how a picture's record starts (the writer's key order and separators)
_DATA_LINE = b'{"type": "image_data"'


def read_head(handle: Any, limit: int, scan_limit: int = 256 << 20) -> bytes:
    """About the first `limit` bytes of a session file's records, its `image_data` lines left out unread into
    memory: a picture's bytes at the start of a file would otherwise hide the prompt that follows them."""
    kept = bytearray()
    state = "start"  # at a line's start, inside a kept line, or inside a skipped one
    carry = b""
    scanned = 0
    while len(kept) < limit and scanned < scan_limit:
        chunk = handle.read(1 << 16)
        if not chunk:
            break
        scanned += len(chunk)
        data, carry, pos = carry + chunk, b"", 0
        while pos < len(data):
            if state == "start":
                head = data[pos : pos + len(_DATA_LINE)]
                if len(head) < len(_DATA_LINE) and b"\n" not in head:
                    carry = data[pos:]  # too little to tell yet
                    break
                state = "skip" if head == _DATA_LINE else "keep"
            newline = data.find(b"\n", pos)
            end = len(data) if newline < 0 else newline + 1
            if state == "keep":
                kept += data[pos:end]
            if newline >= 0:
                state = "start"
            pos = end
    return bytes(kept + carry) if state == "start" else bytes(kept)
