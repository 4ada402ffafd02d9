"""Ctrl+V: an image from the system clipboard, read with the platform's own tool.

A terminal pastes text only, so a copied screenshot is read with `wl-paste` (Wayland),
`xclip` (X11) or `pngpaste` (macOS). Without one, the answer names the tool to install.
Called on a worker thread: a tool may wait on a clipboard owner.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass

from tui.tools.image_scale import MAX_FILE_BYTES

#: how long one clipboard tool may take
TIMEOUT_S = 5.0
#: the image types asked for, best first
IMAGE_TYPES = ("image/png", "image/jpeg", "image/webp", "image/gif")
NO_IMAGE = "The clipboard holds no image."


@dataclass(frozen=True)
class ClipboardImage:
    """The picture's bytes, or the sentence saying why there is none."""

    data: bytes = b""
    problem: str = ""


def _tools(env: Mapping[str, str], platform: str) -> tuple[list[str], str]:
    """The tools to try in order, and the one to name when none is installed."""
    if platform == "darwin":
        return ["pngpaste"], "pngpaste (brew install pngpaste)"
    if env.get("WAYLAND_DISPLAY"):
        return ["wl-paste", "xclip"], "wl-paste (the wl-clipboard package)"
    if env.get("DISPLAY"):
        return ["xclip", "wl-paste"], "xclip"
    return ["wl-paste", "xclip"], "wl-paste (Wayland, the wl-clipboard package) or xclip (X11)"


def read_clipboard_image(env: Mapping[str, str] | None = None, platform: str | None = None) -> ClipboardImage:
    """The clipboard's image, or one sentence: no tool (naming the one needed), no image, or the tool failed."""
    env = os.environ if env is None else env
    tools, needed = _tools(env, platform or sys.platform)
    found = [(name, path) for name in tools if (path := shutil.which(name, path=env.get("PATH")))]
    if not found:
        return ClipboardImage(
            problem=f"Ctrl+V reads an image from the clipboard with {needed}, which is not installed."
        )
    name, program = found[0]
    try:
        if name == "pngpaste":
            return _finish(name, _run([program, "-"], env), allow_empty=True)
        if name == "wl-paste":
            kinds = _run([program, "--list-types"], env)
            kind = _image_type(kinds.stdout)
            return (
                _finish(name, _run([program, "--no-newline", "--type", kind], env))
                if kind
                else ClipboardImage(problem=NO_IMAGE if kinds.returncode == 0 else _failed(name, kinds))
            )
        targets = _run([program, "-selection", "clipboard", "-t", "TARGETS", "-o"], env)
        kind = _image_type(targets.stdout)
        return (
            _finish(name, _run([program, "-selection", "clipboard", "-t", kind, "-o"], env))
            if kind
            else ClipboardImage(problem=NO_IMAGE if targets.returncode == 0 else _failed(name, targets))
        )
    except subprocess.TimeoutExpired:
        return ClipboardImage(problem=f"{name} did not answer within {TIMEOUT_S:.0f} s, so no image was read.")
    except OSError as exc:
        return ClipboardImage(problem=f"{name} could not be run ({exc.strerror or exc}).")


def _run(argv: list[str], env: Mapping[str, str]) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(argv, capture_output=True, timeout=TIMEOUT_S, env=dict(env), stdin=subprocess.DEVNULL)


def _image_type(listing: bytes) -> str | None:
    """The best image type a clipboard offers (from a list of types, one a line)."""
    offered = {line.strip().decode("ascii", "replace") for line in listing.splitlines()}
    return next((kind for kind in IMAGE_TYPES if kind in offered), None)


def _finish(name: str, done: subprocess.CompletedProcess[bytes], allow_empty: bool = False) -> ClipboardImage:
    if done.returncode != 0:
        return ClipboardImage(problem=NO_IMAGE if allow_empty else _failed(name, done))
    if not done.stdout:
        return ClipboardImage(problem=NO_IMAGE)
    if len(done.stdout) > MAX_FILE_BYTES:
        return ClipboardImage(problem=f"The clipboard's image is more than {MAX_FILE_BYTES >> 20} MB.")
    return ClipboardImage(data=done.stdout)


def _failed(name: str, done: subprocess.CompletedProcess[bytes]) -> str:
    said = done.stderr.decode("utf-8", "replace").strip().splitlines()
    return f"{name} failed (exit {done.returncode}{': ' + said[0] if said else ''})."
