"""Read: a file as `cat -n` numbered lines, streamed so huge files stay fast; images as blocks."""

from __future__ import annotations

import base64
import hashlib
import io
import os
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from tui.config.special_files import SpecialFileError, open_regular, refusal, special_kind
from tui.text.wording import plural
from tui.tools.base import Tool, ToolContext, ToolError, ToolInterrupted, ToolResult
from tui.tools.fileio import (
    CHUNK_SIZE,
    bom_encoding,
    hash_bytes,
    hash_file,
    looks_binary,
    missing_path_error,
    os_error,
)
from tui.tools.freshness import record_hash
from tui.tools.inputs import get_int, get_str
from tui.tools.kinds import path_input, path_target

DEFAULT_LIMIT = 2000
MAX_LINE_CHARS = 2000
# keep this many bytes of a line: enough for MAX_LINE_CHARS characters of up to 4 bytes
KEEP_LINE_BYTES = MAX_LINE_CHARS * 4 + 4
# about 25,000 tokens: beyond this the output stops early and says where to continue
MAX_OUTPUT_CHARS = 100_000
MAX_WHOLE_DECODE_BYTES = 64 << 20

IMAGE_EXTENSIONS = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
}
BINARY_EXTENSIONS = frozenset(
    ".exe .dll .so .dylib .o .a .obj .lib .bin .dat .class .jar .war .pyc .pyo .whl .zip .gz .tgz .bz2 .xz .zst "
    ".7z .rar .tar .iso .dmg .pdf .doc .docx .xls .xlsx .ppt .pptx .odt .mp3 .mp4 .mov .avi .mkv .wav .flac "
    ".ogg .webm .ico .bmp .tiff .tif .psd .ttf .otf .woff .woff2 .sqlite .db .parquet .npy .npz .pkl".split()
)


def image_media_type(head: bytes) -> str | None:
    """The media type the magic bytes of an image file announce (png, jpeg, gif, webp)."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


@dataclass
class ScannedLines:
    """What one streaming pass over a file found."""

    lines: list[tuple[bytes, int]]  # (the first KEEP_LINE_BYTES bytes of a line, its full byte length)
    total_lines: int
    digest: str
    size: int


def scan_lines(f: BinaryIO, first: int, limit: int, check: Callable[[], None] | None = None) -> ScannedLines:
    """Collect lines first..first+limit-1 (1-based) while hashing and counting the whole file.

    One pass, one chunk in memory at a time: lines before `first` are skipped with
    `bytes.count`, so line 1,000,000 of a 100 MB file costs about one sequential read.
    `check` runs before each chunk and may raise to stop (an interrupt, a time limit).
    """
    digest = hashlib.sha256()
    lines: list[tuple[bytes, int]] = []
    line_no, newlines, size = 1, 0, 0
    buf, buf_len, done, last_byte = bytearray(), 0, False, b""
    while chunk := f.read(CHUNK_SIZE):
        if check is not None:
            check()
        digest.update(chunk)
        size += len(chunk)
        last_byte = chunk[-1:]
        if done:
            newlines += chunk.count(b"\n")
            continue
        pos, n = 0, len(chunk)
        while pos < n:
            if line_no < first:
                need = first - line_no
                count = chunk.count(b"\n", pos)
                if count < need:
                    line_no += count
                    newlines += count
                    break
                for _ in range(need):
                    pos = chunk.index(b"\n", pos) + 1
                line_no += need
                newlines += need
                continue
            idx = chunk.find(b"\n", pos)
            end = n if idx < 0 else idx
            if len(buf) < KEEP_LINE_BYTES:
                buf += chunk[pos : min(end, pos + KEEP_LINE_BYTES - len(buf))]
            buf_len += end - pos
            if idx < 0:
                break
            lines.append((bytes(buf), buf_len))
            buf.clear()
            buf_len = 0
            line_no += 1
            newlines += 1
            pos = idx + 1
            if len(lines) >= limit:
                done = True
                newlines += chunk.count(b"\n", pos)
                break
    if not done and buf_len:
        lines.append((bytes(buf), buf_len))
    total = newlines + (1 if size and last_byte != b"\n" else 0)
    return ScannedLines(lines, total, digest.hexdigest(), size)


def decode_line(raw: bytes, full_len: int) -> tuple[str, bool]:
    """One line as text (cut at MAX_LINE_CHARS with a marker) and whether bytes were replaced."""
    cut_bytes = full_len > len(raw)
    replaced = False
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        if cut_bytes and exc.start >= len(raw) - 3 and exc.reason == "unexpected end of data":
            text = raw[: exc.start].decode("utf-8", errors="replace")
            replaced = "\ufffd" in text
        else:
            text, replaced = raw.decode("utf-8", errors="replace"), True
    return cut_line(text, full_len if cut_bytes else None), replaced


def cut_line(text: str, full_bytes: int | None = None) -> str:
    """`text` without its CR, cut at MAX_LINE_CHARS with a marker saying how long it was."""
    if text.endswith("\r"):
        text = text[:-1]
    if full_bytes is not None or len(text) > MAX_LINE_CHARS:
        size = plural(full_bytes, "byte") if full_bytes is not None else plural(len(text), "character")
        text = text[:MAX_LINE_CHARS] + f"… [line truncated: {size} in total]"
    return text


def stop_check(ctx: ToolContext, display: str) -> Callable[[], None]:
    """A check that raises ToolInterrupted on Esc and a ToolError once `ctx.time_limit` has passed."""
    deadline = time.monotonic() + ctx.time_limit

    def check() -> None:
        if ctx.cancel.is_set():
            raise ToolInterrupted("The read was interrupted.")
        if time.monotonic() > deadline:
            raise ToolError(
                f"Read stopped after {ctx.time_limit:g} s: {display} could not be read in that time "
                "(a slow or hung file system); nothing of it is shown."
            )

    return check


class ReadTool(Tool):
    name = "Read"
    description = (
        "Reads a file from the local filesystem.\n\n"
        "- `file_path` may be absolute or relative to the project directory.\n"
        f"- Reads up to {DEFAULT_LIMIT} lines from the start by default; pass `offset` (1-based line number) "
        "and `limit` to read a part of a long file.\n"
        f"- Lines longer than {MAX_LINE_CHARS} characters are cut.\n"
        "- Output is `cat -n` style: each line is the line number, a tab, then the line text. "
        "The number and tab are not part of the file: never copy them into Edit's old_string.\n"
        "- Images (png, jpeg, gif, webp) are returned as images you can see.\n"
        "- Read a file before you Edit or Write it: edits to files you have not read are refused.\n"
        "- It reads files, not directories: use Glob or `ls` through Bash for those.\n"
        "- A path shown in Bash's $'…' quoting by Glob or Grep (a name with a newline or bytes that are "
        "not UTF-8, e.g. $'a\\nb.txt') is passed back exactly as shown, here and to Edit and Write.\n"
        "- You may call Read on several files in parallel in one response."
    )
    input_schema = {
        "type": "object",
        "properties": {
            "file_path": {
                "type": "string",
                "description": "The path of the file to read (absolute, or relative to the project)",
            },
            "offset": {
                "type": "integer",
                "minimum": 0,
                "description": "The line number to start reading from. Only provide if the file is too large to read at once",
            },
            "limit": {
                "type": "integer",
                "exclusiveMinimum": 0,
                "description": "The number of lines to read. Only provide if the file is too large to read at once.",
            },
        },
        "required": ["file_path"],
        "additionalProperties": False,
    }
    read_only = True
    kind = "read"

    def permission_target(self, tool_input: dict[str, Any], ctx: ToolContext) -> str | None:
        return path_target(path_input(ctx, tool_input.get("file_path")))

    def label(self, tool_input: dict[str, Any], ctx: ToolContext) -> str:
        path = tool_input.get("file_path")
        if not isinstance(path, str) or not path or "\x00" in path:
            return "Read"
        return f"Read {ctx.display_path(ctx.resolve(path))}"

    def run(self, tool_input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        path = ctx.resolve(get_str(tool_input, "file_path", allow_empty=False) or "")
        offset = get_int(tool_input, "offset", minimum=0)
        limit = get_int(tool_input, "limit", minimum=1) or DEFAULT_LIMIT
        first = max(1, offset or 1)
        display = ctx.display_path(path)
        try:
            st = os.stat(path)
        except FileNotFoundError:
            raise missing_path_error(path, ctx) from None
        except OSError as exc:
            raise os_error(exc, "read", display) from None
        except ValueError:
            raise ToolError("The file_path contains characters the file system cannot use.") from None
        if stat.S_ISDIR(st.st_mode):
            raise ToolError(f"{display} is a directory, not a file; use Glob to list its files or Bash `ls {display}`.")
        kind = special_kind(st.st_mode)
        if kind is not None:  # checked again on the open descriptor: the path may change in between
            raise ToolError(refusal(display, kind))
        editor = ctx.state.editor
        if editor is not None and (held := editor.read(path, ctx.cancel)) is not None:  # an editor's buffer
            return self._read_open_file(io.BytesIO(held), held[:8192], path, display, first, limit, offset, ctx)
        try:
            with os.fdopen(open_regular(path), "rb") as f:
                head = f.read(8192)
                f.seek(0)
                return self._read_open_file(f, head, path, display, first, limit, offset, ctx)
        except SpecialFileError as exc:
            raise ToolError(str(exc).replace(str(path), display, 1)) from None
        except OSError as exc:
            raise os_error(exc, "read", display) from None

    def _read_open_file(
        self,
        f: BinaryIO,
        head: bytes,
        path: Path,
        display: str,
        first: int,
        limit: int,
        offset: int | None,
        ctx: ToolContext,
    ) -> ToolResult:
        suffix = path.suffix.lower()
        media_type = image_media_type(head)
        if media_type or suffix in IMAGE_EXTENSIONS:
            return self._image(f, path, display, ctx)
        if suffix in BINARY_EXTENSIONS or looks_binary(head):
            record_hash(ctx.state, path, hash_file(path) or "")
            kind = "a PDF" if suffix == ".pdf" else "a binary file"
            raise ToolError(
                f"{display} is {kind} ({plural(os.path.getsize(path), 'byte')}) and cannot be shown as text; "
                "inspect it through Bash instead (e.g. `file`, `xxd | head`)."
            )
        bom = bom_encoding(head)
        if bom and bom[0] != "utf-8":
            return self._whole_decoded(f, path, display, first, limit, offset, bom[0], ctx)
        # no more lines than MAX_OUTPUT_CHARS could show: a huge limit must not load a huge file
        scanned = scan_lines(f, first, min(limit, MAX_OUTPUT_CHARS // 2), stop_check(ctx, display))
        record_hash(ctx.state, path, scanned.digest)
        decoded: list[str] = []
        replaced = False
        for raw, full_len in scanned.lines:
            if not decoded and first == 1 and raw.startswith(b"\xef\xbb\xbf"):
                raw, full_len = raw[3:], full_len - 3
            text, was_replaced = decode_line(raw, full_len)
            decoded.append(text)
            replaced = replaced or was_replaced
        notes = ["This file is not valid UTF-8: undecodable bytes are shown as \ufffd."] if replaced else []
        return self._format(decoded, scanned.total_lines, scanned.size, display, first, offset, notes)

    def _image(self, f: BinaryIO, path: Path, display: str, ctx: ToolContext) -> ToolResult:
        """The picture as `@` attachments send it: decoded, checked (format, pixels, cut short), scaled to fit."""
        from tui.tools.image_scale import MAX_FILE_BYTES, ImageRefused, prepare_image, too_big

        data = f.read(MAX_FILE_BYTES + 1)
        try:
            if len(data) > MAX_FILE_BYTES:
                raise ImageRefused(too_big(os.fstat(f.fileno()).st_size))
            image = prepare_image(data)
        except ImageRefused as exc:
            raise ToolError(f"{display} cannot be sent as an image: {exc}.") from None
        record_hash(ctx.state, path, hash_bytes(data))
        source = {"type": "base64", "media_type": image.media_type, "data": base64.b64encode(image.data).decode()}
        meta: dict[str, Any] = {"path": display, "media_type": image.media_type, "bytes": len(image.data)}
        notes = []
        if image.scaled:
            meta["original"] = [image.original_width, image.original_height, image.original_bytes]
            notes.append(
                {
                    "type": "text",
                    "text": f"(The image is {image.original_width}×{image.original_height} pixels; "
                    f"it was scaled to {image.width}×{image.height} to send.)",
                }
            )
        return ToolResult(content=[{"type": "image", "source": source}, *notes], meta=meta)

    def _whole_decoded(
        self,
        f: BinaryIO,
        path: Path,
        display: str,
        first: int,
        limit: int,
        offset: int | None,
        encoding: str,
        ctx: ToolContext,
    ) -> ToolResult:
        """UTF-16/32 files (found by their BOM) cannot be split on b"\\n": decode them whole."""
        data = f.read(MAX_WHOLE_DECODE_BYTES + 1)
        if len(data) > MAX_WHOLE_DECODE_BYTES:
            raise ToolError(
                f"{display} is a {encoding} file over 64 MB; convert it to UTF-8 through Bash (iconv) to read it."
            )
        record_hash(ctx.state, path, hash_bytes(data))
        bom = bom_encoding(data)
        text = data[len(bom[1]) if bom else 0 :].decode(encoding, errors="replace")
        all_lines = text.split("\n")
        if all_lines and all_lines[-1] == "":
            all_lines.pop()
        window = [cut_line(line) for line in all_lines[first - 1 : first - 1 + limit]]
        notes = [f"This file is encoded as {encoding}; it is shown decoded."]
        return self._format(window, len(all_lines), len(data), display, first, offset, notes)

    def _format(
        self, lines: list[str], total: int, size: int, display: str, first: int, offset: int | None, notes: list[str]
    ) -> ToolResult:
        meta: dict[str, Any] = {"path": display, "total_lines": total}
        if size == 0 or total == 0:
            return ToolResult(content=f"The file {display} exists but is empty.", meta=meta)
        if not lines:
            return ToolResult(
                content=f"{display} has {plural(total, 'line')}, so offset {offset} is past the end; use an offset of at most {total}.",
                meta=meta,
            )
        out: list[str] = []
        chars = 0
        for i, text in enumerate(lines):
            entry = f"{first + i}\t{text}"
            if out and chars + len(entry) + 1 > MAX_OUTPUT_CHARS:
                break
            out.append(entry)
            chars += len(entry) + 1
        last = first + len(out) - 1
        meta["lines"] = [first, last]
        if last < total:
            why = f" (output stopped at {MAX_OUTPUT_CHARS:,} characters)" if len(out) < len(lines) else ""
            notes.append(f"Showing lines {first}-{last} of {total:,}{why}. Use offset={last + 1} to read more.")
        body = "\n".join(out)
        if notes:
            body += "\n\n" + "\n".join(f"[{note}]" for note in notes)
        return ToolResult(content=body, meta=meta)
