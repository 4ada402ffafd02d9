"""Finding and running ripgrep (the PyPI `ripgrep` wheel, else an `rg` on PATH) for Glob and Grep."""

from __future__ import annotations

import functools
import os
import selectors
import shutil
import subprocess
import sysconfig
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tui.tools.base import FatalToolError, ToolContext, ToolError, ToolInterrupted

# flags every search shares: no user config, plain output, hidden files, .gitignore honoured
# even outside a git checkout
COMMON_FLAGS = ("--no-config", "--color=never", "--hidden", "--no-require-git")
# goes after the caller's globs: the last matching glob wins, and .git must stay out
EXCLUDE_GIT = "--glob=!.git"


@functools.lru_cache(maxsize=1)
def find_rg() -> str | None:
    """The rg binary: next to this Python's scripts (the wheel), else on PATH."""
    candidate = os.path.join(sysconfig.get_path("scripts"), "rg")
    if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
        return candidate
    return shutil.which("rg")


def rg_binary() -> str:
    """The rg binary, or a ToolError that says how to install it."""
    rg = find_rg()
    if rg is None:
        raise ToolError("ripgrep (rg) is not installed; install it with `pip install ripgrep` or your package manager.")
    return rg


@dataclass
class RgOutput:
    lines: list[str]
    returncode: int
    stderr: str
    stopped_early: bool  # max_lines was reached and rg was stopped


def run_rg(
    args: list[str],
    cwd: Path,
    ctx: ToolContext,
    max_lines: int | None = None,
    on_lines: Callable[[list[str]], None] | None = None,
) -> RgOutput:
    """Run rg with `args` in `cwd`, collecting stdout lines; stops rg after `max_lines` lines.

    `on_lines` gets each batch of complete lines as rg prints them, so per-file work
    (like stat for sorting by mtime) overlaps with the search. Polls `ctx.cancel` so an
    interrupt ends a long search at once.
    """
    try:
        proc = subprocess.Popen(
            [rg_binary(), *args], cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
    except OSError as exc:
        raise ToolError(f"Could not run ripgrep: {exc.strerror or exc}.") from None
    assert proc.stdout is not None and proc.stderr is not None
    out_chunks: list[bytes] = []
    err_chunks: list[bytes] = []
    newlines, stopped = 0, False
    pending = bytearray()
    selector = selectors.DefaultSelector()
    selector.register(proc.stdout, selectors.EVENT_READ, out_chunks)
    selector.register(proc.stderr, selectors.EVENT_READ, err_chunks)
    try:
        while selector.get_map():
            if ctx.cancel.is_set():
                proc.kill()
                proc.wait()
                raise ToolInterrupted("The search was interrupted.")
            for key, _ in selector.select(timeout=0.1):
                data = os.read(key.fd, 1 << 16)
                if not data:
                    selector.unregister(key.fileobj)
                    continue
                key.data.append(data)
                if key.data is out_chunks and on_lines is not None:
                    pending += data
                    cut = pending.rfind(b"\n")
                    if cut >= 0:
                        on_lines(pending[:cut].decode("utf-8", errors="replace").split("\n"))
                        del pending[: cut + 1]
                if key.data is out_chunks and max_lines is not None:
                    newlines += data.count(b"\n")
                    if newlines >= max_lines:
                        stopped = True
                        proc.kill()
                        selector.unregister(proc.stdout)
        returncode = proc.wait()
    finally:
        selector.close()
        proc.stdout.close()
        proc.stderr.close()
    if on_lines is not None and pending:
        on_lines([pending.decode("utf-8", errors="replace")])
    text = b"".join(out_chunks).decode("utf-8", errors="replace")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if max_lines is not None and len(lines) > max_lines:
        lines = lines[:max_lines]
    return RgOutput(lines, 0 if stopped else returncode, b"".join(err_chunks).decode("utf-8", errors="replace"), stopped)


def rg_failure(stderr: str, what: str) -> ToolError:
    """One sentence from rg's error output (regex errors, unknown file types, bad globs)."""
    text = stderr.strip()
    if "regex parse error" in text or "error parsing regex" in text.lower():
        detail = " ".join(line.strip() for line in text.splitlines()[1:] if line.strip())[:300]
        return ToolError(
            f"Invalid regular expression ({detail}); ripgrep uses Rust regex syntax: escape literal "
            "characters such as ( ) [ ] { } . * + ? with a backslash."
        )
    if 'literal "\\n" is not allowed' in text:
        return ToolError("The pattern contains a line break; set multiline to true to match across lines.")
    if "unrecognized file type" in text:
        return ToolError(f"{text.splitlines()[0].removeprefix('rg: ')}; use a type ripgrep knows (e.g. py, js, rust, go) or the glob parameter.")
    first = text.splitlines()[0].removeprefix("rg: ") if text else "ripgrep failed"
    return ToolError(f"{what} failed: {first[:300]}.")


def search_root(path_arg: str | None, ctx: ToolContext) -> Path:
    """The directory or file to search: `path_arg` resolved, or the project directory."""
    from tui.tools.fileio import missing_path_error

    if not ctx.project_dir.is_dir():
        raise FatalToolError(f"The project directory {ctx.project_dir} no longer exists; nothing can be searched.")
    if not path_arg:
        return ctx.project_dir
    root = ctx.resolve(path_arg)
    try:
        if not root.exists():
            raise missing_path_error(root, ctx, what="Path")
    except (OSError, ValueError):
        raise ToolError(f"Cannot use the path {path_arg!r}; pass an existing file or directory.") from None
    return root


def relative_arg(root: Path, ctx: ToolContext) -> str | None:
    """How to pass `root` to rg run in the project directory: relative when inside it, None for the project itself."""
    try:
        rel = root.relative_to(ctx.project_dir)
    except ValueError:
        return str(root)
    return None if str(rel) == "." else str(rel)
