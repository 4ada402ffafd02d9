"""Finding and running ripgrep (the PyPI `ripgrep` wheel, else an `rg` on PATH) for Glob and Grep."""

from __future__ import annotations

import functools
import os
import selectors
import shutil
import subprocess
import sysconfig
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tui.tools.base import FatalToolError, ToolContext, ToolError, ToolInterrupted

# flags every search shares: no user config, plain output, hidden files, .gitignore honoured
# even outside a git checkout
COMMON_FLAGS = ("--no-config", "--color=never", "--hidden", "--no-require-git")
# goes after the caller's globs: the last matching glob wins, and .git must stay out
EXCLUDE_GIT = "--glob=!.git"
# after two reads in a row of less than SMALL_READ bytes of output, wait BATCH_WAIT seconds
# before the next (thousands of wake-ups for one file name each cost more than the stat of
# those files); a single short read, like the last one, is not held up
SMALL_READ = 1 << 12
BATCH_WAIT = 0.002


def search_flags(root: Path) -> list[str]:
    """COMMON_FLAGS, plus --no-ignore-exclude when no `.git/info/exclude` at or above `root` has a pattern.

    With --no-require-git, rg looks for `.git/info/exclude` in every folder it walks: one
    failed stat per folder, about 5% of a big listing. Git reads only the enclosing
    repository's file, which usually holds just the default comments. When neither it nor
    any other above `root` has a pattern, the lookups are skipped; the only difference is
    that exclude files of other repositories nested inside the tree are no longer read.
    """
    folder = root if root.is_dir() else root.parent
    for candidate in (folder, *folder.parents):
        try:
            with open(candidate / ".git" / "info" / "exclude", "rb") as f:
                text = f.read(1 << 20)
        except OSError:
            continue
        if any(line.strip() and not line.lstrip().startswith(b"#") for line in text.splitlines()):
            return list(COMMON_FLAGS)
    return [*COMMON_FLAGS, "--no-ignore-exclude"]


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
    lines: list[str]  # stdout lines; empty when `on_lines` took them
    returncode: int
    stderr: str
    stopped_early: bool  # max_lines was reached and rg was stopped
    line_count: int = 0  # lines rg printed, also when `on_lines` took them


def run_rg(
    args: list[str],
    cwd: Path,
    ctx: ToolContext,
    max_lines: int | None = None,
    on_lines: Callable[[list[bytes]], None] | None = None,
) -> RgOutput:
    """Run rg with `args` in `cwd`, collecting stdout lines; stops rg after `max_lines` lines.

    With `on_lines`, each batch of complete lines goes to it as undecoded bytes as soon as
    rg prints them, on this thread, and is not kept: per-file work (like stat for sorting
    by mtime) overlaps with the search without a second copy or thread hand-offs
    (`max_lines` applies only without `on_lines`). Polls `ctx.cancel` so an interrupt ends
    a long search at once.
    """
    try:
        proc = subprocess.Popen(
            [rg_binary(), *args], cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
    except OSError as exc:
        raise ToolError(f"Could not run ripgrep: {exc.strerror or exc}.") from None
    assert proc.stdout is not None and proc.stderr is not None
    out_fd, err_fd = proc.stdout.fileno(), proc.stderr.fileno()
    out_chunks: list[bytes] = []
    err_chunks: list[bytes] = []
    newlines, stopped, small_reads = 0, False, False
    pending = b""
    selector = selectors.DefaultSelector()
    selector.register(out_fd, selectors.EVENT_READ)
    selector.register(err_fd, selectors.EVENT_READ)
    try:
        while selector.get_map():
            if ctx.cancel.is_set():
                proc.kill()
                proc.wait()
                raise ToolInterrupted("The search was interrupted.")
            for key, _ in selector.select(timeout=0.1):
                fd = key.fd
                data = os.read(fd, 1 << 16)
                if fd == out_fd:
                    if 0 < len(data) < SMALL_READ and small_reads:
                        # rg prints one file's output at a time: let more pile up rather than wake per file
                        time.sleep(BATCH_WAIT)
                    small_reads = 0 < len(data) < SMALL_READ
                if not data:
                    selector.unregister(fd)
                elif fd == err_fd:
                    err_chunks.append(data)
                elif on_lines is not None:
                    cut = data.rfind(b"\n")
                    if cut < 0:
                        pending += data
                        continue
                    batch = (pending + data[:cut]).split(b"\n") if pending else data[:cut].split(b"\n")
                    pending = data[cut + 1 :]
                    newlines += len(batch)
                    on_lines(batch)
                else:
                    out_chunks.append(data)
                    if max_lines is not None:
                        newlines += data.count(b"\n")
                        if newlines >= max_lines:
                            stopped = True
                            proc.kill()
                            selector.unregister(fd)
        returncode = proc.wait()
    finally:
        selector.close()
        proc.stdout.close()
        proc.stderr.close()
    if on_lines is not None and pending:
        newlines += 1
        on_lines([pending])
    lines: list[str] = []
    if out_chunks:
        lines = b"".join(out_chunks).decode("utf-8", errors="replace").split("\n")
        if lines[-1] == "":
            lines.pop()
        if max_lines is not None and len(lines) > max_lines:
            lines = lines[:max_lines]
        newlines = len(lines)
    stderr = b"".join(err_chunks).decode("utf-8", errors="replace")
    return RgOutput(lines, 0 if stopped else returncode, stderr, stopped, newlines)


def age_keys(names: list[bytes], dir_fd: int) -> list[float]:
    """Sort keys for newest first: each name's negated mtime (0.0 when it cannot be stat'ed).

    Names are relative to `dir_fd` (absolute ones work too); one list comprehension over
    os.stat is the cheapest way to stat thousands of files from Python.
    """
    stat = os.stat
    try:
        return [-stat(name, dir_fd=dir_fd).st_mtime for name in names]
    except OSError:
        pass
    keys = []
    for name in names:
        try:
            keys.append(-stat(name, dir_fd=dir_fd).st_mtime)
        except OSError:
            keys.append(0.0)
    return keys


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
