"""A paste that is nothing but image file paths, as terminals paste a dropped or copied file.

Terminals hand a dropped file over as its path, quoted (`'/home/a/My Shot.png'`), with
backslash escapes (`/home/a/My\\ Shot.png`) or as a `file://` URI (percent-encoded, several
on separate lines when files are copied in a file manager). Only a paste in which every
word names an existing png, jpeg, gif or webp file counts; anything else stays text.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path
from urllib.parse import unquote, urlparse

#: names of the files a paste may attach as images
IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".gif", ".webp"})
#: a longer paste is text (a path list this long is not a drop)
MAX_PASTE_CHARS = 16_384


def _as_path(word: str, project_dir: Path) -> str | None:
    """`word` as an absolute path of an existing image file, or None."""
    if word.startswith("file://"):
        parsed = urlparse(word)
        if parsed.netloc not in ("", "localhost"):
            return None
        word = unquote(parsed.path)
    path = Path(os.path.expanduser(word))
    if not path.is_absolute():
        path = project_dir / path
    try:
        if path.suffix.lower() not in IMAGE_SUFFIXES or not path.is_file():
            return None
    except (OSError, ValueError):  # a NUL byte, a name too long
        return None
    return os.path.normpath(path)


def pasted_image_paths(text: str, project_dir: Path) -> list[str]:
    """The image files a paste names, each once in order; [] when the paste is not only such paths."""
    text = text.strip()
    if not text or len(text) > MAX_PASTE_CHARS:
        return []
    whole = _as_path(text.strip("'\""), project_dir)  # one path with unescaped spaces
    if whole is not None:
        return [whole]
    try:
        words = shlex.split(text)
    except ValueError:  # an unbalanced quote: text
        return []
    paths = [_as_path(word, project_dir) for word in words]
    if not paths or any(path is None for path in paths):
        return []
    return list(dict.fromkeys(p for p in paths if p is not None))
