"""An attached image made fit to send: checked, decoded and scaled with Pillow, the original never touched.

The API takes png, jpeg, gif and webp up to 5 MB of base64 and answers fastest for a long edge of
at most 1568 px, so a bigger picture is scaled down (and re-encoded as JPEG, which costs ~20 ms
where PNG costs ~250 ms for a 1568 px screenshot). A file that is not one of those formats, is
cut short, or is too large to decode safely is refused with one sentence. Pillow is imported
here only, and only when an image is attached: start-up never pays for it.
"""

from __future__ import annotations

import io
import warnings
from dataclasses import dataclass
from typing import Any

#: the long edge the API answers fastest for (its own advice), unless the `image_max_edge` setting says otherwise
MAX_EDGE = 1568
#: the API takes images up to 5 MB of base64, i.e. 3.75 MB of raw bytes (as the Read tool)
MAX_SEND_BYTES = 3_750_000
#: a file bigger than this is not read for attaching at all
MAX_FILE_BYTES = 64 << 20
#: the decompression-bomb guard: more pixels than this are not decoded (an 8000 x 8000 picture)
MAX_PIXELS = 64_000_000
#: Pillow's format name -> the media type the API takes, for the formats sent as they are
SENDABLE = {"PNG": "image/png", "JPEG": "image/jpeg", "GIF": "image/gif", "WEBP": "image/webp"}
#: re-encoding: JPEG at these qualities, then smaller, until the bytes fit
QUALITIES = (90, 80, 70)
NOT_AN_IMAGE = "it is not a png, jpeg, gif or webp image"


class ImageRefused(ValueError):
    """The picture cannot be sent; the message is the end of one sentence ("it is not …")."""


@dataclass(frozen=True)
class ScaledImage:
    """The bytes to send and what they are, beside what the original was."""

    media_type: str
    data: bytes
    width: int
    height: int
    original_width: int
    original_height: int
    original_bytes: int

    @property
    def scaled(self) -> bool:
        """True when the picture sent is smaller than the original."""
        return (self.width, self.height) != (self.original_width, self.original_height)


def too_big(size: int) -> str:
    """Why a file of `size` bytes is not read as an image."""
    return f"it is {size / 1e6:,.0f} MB, more than the {MAX_FILE_BYTES >> 20} MB an attached image may be"


def prepare_image(data: bytes, max_edge: int = MAX_EDGE, max_bytes: int = MAX_SEND_BYTES) -> ScaledImage:
    """`data` as it may be sent: as it is when it fits, else scaled and re-encoded; ImageRefused when it cannot be."""
    from PIL import Image, UnidentifiedImageError

    if len(data) > MAX_FILE_BYTES:
        raise ImageRefused(too_big(len(data)))
    claimed = header_size(data[: 1 << 17])
    if claimed is not None and claimed[0] * claimed[1] > MAX_PIXELS:
        raise ImageRefused(_bomb(*claimed))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            # only the four formats the API takes: Pillow's other plugins (EPS runs Ghostscript) never see the bytes
            image = Image.open(io.BytesIO(data), formats=list(SENDABLE))
    except UnidentifiedImageError:
        raise ImageRefused(NOT_AN_IMAGE) from None
    except (Image.DecompressionBombWarning, Image.DecompressionBombError):
        raise ImageRefused("it has more pixels than can be decoded safely") from None
    except (OSError, SyntaxError, ValueError, EOFError):
        raise ImageRefused(_damaged()) from None
    width, height = image.size
    if width * height > MAX_PIXELS:
        raise ImageRefused(_bomb(width, height))
    fmt = str(image.format)
    fits = max(width, height) <= max_edge
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            if fits:
                image.load()  # a truncated or damaged file fails here, before anything is sent
            else:
                image.thumbnail((max_edge, max_edge))  # JPEG: decoded at a reduced scale already (draft)
    except (OSError, SyntaxError, ValueError, EOFError, Image.DecompressionBombWarning, Image.DecompressionBombError):
        raise ImageRefused(_damaged()) from None
    if fits and len(data) <= max_bytes:
        return ScaledImage(SENDABLE[fmt], data, width, height, width, height, len(data))
    return _reencoded(image, fmt, width, height, len(data), max_bytes)


def _bomb(width: int, height: int) -> str:
    return f"it is {width}×{height} pixels, too large to decode safely (more than {MAX_PIXELS // 1_000_000} megapixels)"


def _damaged() -> str:
    return "it is cut short or damaged, so it cannot be decoded"


def _reencoded(image: Any, fmt: str, width: int, height: int, size: int, max_bytes: int) -> ScaledImage:
    """JPEG bytes of `image` (flattened on white), at a lower quality or size until they fit in `max_bytes`."""
    from PIL import Image

    if image.mode not in ("RGB", "L"):
        rgba = image.convert("RGBA")
        flat = Image.new("RGB", rgba.size, (255, 255, 255))
        flat.paste(rgba, mask=rgba.getchannel("A"))
        image = flat
    # a screenshot's text stays sharp with full-resolution colour; a photo keeps JPEG's usual subsampling
    subsampling = -1 if fmt == "JPEG" else 0
    while True:
        for quality in QUALITIES:
            out = io.BytesIO()
            image.save(out, "JPEG", quality=quality, subsampling=subsampling)
            if out.tell() <= max_bytes:
                return ScaledImage("image/jpeg", out.getvalue(), image.width, image.height, width, height, size)
        image = image.resize((max(1, image.width * 3 // 4), max(1, image.height * 3 // 4)))


def header_size(head: bytes) -> tuple[int, int] | None:
    """(width, height) read from the first bytes of a png, gif, webp or jpeg file, without decoding it."""
    if head.startswith(b"\x89PNG\r\n\x1a\n") and len(head) >= 24:
        return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")
    if head.startswith((b"GIF87a", b"GIF89a")) and len(head) >= 10:
        return int.from_bytes(head[6:8], "little"), int.from_bytes(head[8:10], "little")
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP" and len(head) >= 30:
        return _webp_size(head)
    if head.startswith(b"\xff\xd8"):
        return _jpeg_size(head)
    return None


def _webp_size(head: bytes) -> tuple[int, int] | None:
    chunk = head[12:16]
    if chunk == b"VP8X":
        return int.from_bytes(head[24:27], "little") + 1, int.from_bytes(head[27:30], "little") + 1
    if chunk == b"VP8L":
        bits = int.from_bytes(head[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8 ":
        return int.from_bytes(head[26:28], "little") & 0x3FFF, int.from_bytes(head[28:30], "little") & 0x3FFF
    return None


def _jpeg_size(head: bytes) -> tuple[int, int] | None:
    """The frame size of a JPEG's first SOF marker (skipping the segments before it, EXIF included)."""
    at = 2
    while at + 9 <= len(head):
        if head[at] != 0xFF:
            return None
        marker = head[at + 1]
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:  # no length
            at += 2
            continue
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            return int.from_bytes(head[at + 7 : at + 9], "big"), int.from_bytes(head[at + 5 : at + 7], "big")
        at += 2 + int.from_bytes(head[at + 2 : at + 4], "big")
    return None
