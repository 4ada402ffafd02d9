"""Finding and running ripgrep (the PyPI `ripgrep` wheel, else an `rg` on PATH) for Glob and Grep."""

from __future__ import annotations

import functools
import os
import re
import selectors
import shutil
import stat
import subprocess
import sysconfig
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tui.config.special_files import read_regular_bytes, refusal, special_kind
from tui.text.wording import plural
from tui.tools.base import FatalToolError, ToolContext, ToolError, ToolInterrupted
from tui.tools.names import show_name

# flags every search shares: no user config, plain output, hidden files, .gitignore honoured
# even outside a git checkout
COMMON_FLAGS = ("--no-config", "--color=never", "--hidden", "--no-require-git")
# goes after the caller's globs: the last matching glob wins, and .git must stay out
EXCLUDE_GIT = "--glob=!.git"
EXCLUDE_FILE = ".git/info/exclude"
# the ignore files rg reads in a folder and above it, with the flag that turns that kind off
IGNORE_FILES = (
    (".gitignore", "--no-ignore-vcs"),
    (".ignore", "--no-ignore-dot"),
    (".rgignore", "--no-ignore-dot"),
    (EXCLUDE_FILE, "--no-ignore-exclude"),
)
# left out of a search of `/`: kernel views that are not files (rg would read /proc/kmsg for ever)
PSEUDO_FILESYSTEMS = ("proc", "sys", "dev")
_NUMBERED_LINE = re.compile(r"(\d+)([:-])")
# control bytes but the newline between paths: a path holding one is shown quoted
_CONTROL_BYTES = bytes([*range(0x0A), *range(0x0B, 0x20), 0x7F])
# after two reads in a row of less than SMALL_READ bytes of output, wait BATCH_WAIT seconds
# before the next (thousands of wake-ups for one file name each cost more than the stat of
# those files); a single short read, like the last one, is not held up
SMALL_READ = 1 << 12
BATCH_WAIT = 0.002


def search_flags(root: Path) -> list[str]:
    """The rg flags for a search of `root`: COMMON_FLAGS plus what `ignore_setup` adds."""
    return ignore_setup(root)[0]


def ignore_setup(root: Path) -> tuple[list[str], list[str]]:
    """The rg flags for the ignore files at and above `root`, and a note for each one not read.

    rg opens `.gitignore`, `.ignore`, `.rgignore` and `.git/info/exclude` in the searched
    folder and every folder above it, and blocks for good on a FIFO there, so each is
    stat'ed first (never opened unless regular): a special one is left out with the flag
    that turns its kind off, and a note says so. With --no-require-git, rg also looks for
    `.git/info/exclude` in every folder it walks (one failed stat per folder, about 5% of
    a big listing); when no exclude file at or above `root` has a pattern, --no-ignore-exclude
    skips those lookups (only exclude files of repositories nested in the tree are lost).
    """
    folder = root if root.is_dir() else root.parent
    flags: list[str] = []
    notes: list[str] = []
    exclude_has_patterns = False
    for candidate in (folder, *folder.parents):
        for name, flag in IGNORE_FILES:
            path = candidate / name
            try:
                mode = os.stat(path).st_mode
            except (OSError, ValueError):
                continue
            kind = special_kind(mode)
            if kind is not None:
                if flag not in flags:
                    flags.append(flag)
                notes.append(
                    f"{show_name(str(path))} is {kind}, not a regular file, so it was not read; "
                    f"ignore rules of its kind ({name.rsplit('/', 1)[-1]}) were not applied."
                )
            elif name == EXCLUDE_FILE and not exclude_has_patterns:
                exclude_has_patterns = _has_patterns(path)
    if not exclude_has_patterns and "--no-ignore-exclude" not in flags:
        flags.append("--no-ignore-exclude")
    if folder == Path(folder.anchor):
        flags += [f"--glob=!/{name}" for name in PSEUDO_FILESYSTEMS]
        notes.append("/proc, /sys and /dev were left out: they are views of the kernel, not files.")
    from tui.sandbox.runtime import current as current_sandbox

    if secrets := current_sandbox().read_denied_under(str(folder)):
        flags += [f"--glob=!/{rel}" for rel in secrets]
        notes.append(f"{', '.join(secrets)} {'was' if len(secrets) == 1 else 'were'} left out (sandbox.deny_read).")
    return [*COMMON_FLAGS, *flags], notes


def _has_patterns(exclude: Path) -> bool:
    """Whether the regular file `exclude` holds a line that is neither blank nor a comment."""
    try:
        text = read_regular_bytes(exclude, 1 << 20)
    except OSError:
        return False
    return any(line.strip() and not line.lstrip().startswith(b"#") for line in text.splitlines())


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
    stopped_early: bool  # max_lines (or the context's walk_limit) was reached and rg was stopped
    line_count: int = 0  # lines rg printed, also when `on_lines` took them
    timed_out: bool = False  # the context's time_limit passed and rg was stopped
    raw: bytes = b""  # stdout as printed, when `keep_raw` asked for it (lines is then empty)


def run_rg(
    args: list[str],
    cwd: Path,
    ctx: ToolContext,
    max_lines: int | None = None,
    on_lines: Callable[[list[bytes]], None] | None = None,
    sep: bytes = b"\n",
    keep_raw: bool = False,
) -> RgOutput:
    """Run rg with `args` in `cwd`, collecting stdout lines; stops rg after `max_lines` lines.

    With `on_lines`, each batch of complete `sep`-ended records goes to it as undecoded
    bytes as soon as rg prints them, on this thread, and is not kept: per-file work (like
    stat for sorting by mtime) overlaps with the search without a second copy or thread
    hand-offs. rg never runs for ever: it is killed at once when `ctx.cancel` is set
    (ToolInterrupted), after `ctx.walk_limit` records (`stopped_early`) or after
    `ctx.time_limit` seconds (`timed_out`), keeping what it printed so far.
    """
    limit = ctx.walk_limit if max_lines is None else min(max_lines, ctx.walk_limit)
    deadline = time.monotonic() + ctx.time_limit
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
    newlines, stopped, timed_out, small_reads, done = 0, False, False, False, False
    pending = b""
    selector = selectors.DefaultSelector()
    selector.register(out_fd, selectors.EVENT_READ)
    selector.register(err_fd, selectors.EVENT_READ)
    try:
        while selector.get_map():
            if ctx.cancel.is_set():
                raise ToolInterrupted("The search was interrupted.")
            if time.monotonic() > deadline:
                timed_out = True
                break
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
                    cut = data.rfind(sep)
                    if cut < 0:
                        pending += data
                        continue
                    batch = (pending + data[:cut]).split(sep) if pending else data[:cut].split(sep)
                    pending = data[cut + 1 :]
                    newlines += len(batch)
                    on_lines(batch)
                    if newlines >= limit:
                        stopped = True
                        break
                else:
                    out_chunks.append(data)
                    newlines += data.count(sep)
                    if newlines >= limit:
                        stopped = True
                        break
            if stopped:
                break
        done = not (stopped or timed_out)
    finally:
        selector.close()
        if not done:
            proc.kill()  # interrupted, cut, timed out or failed: rg must not outlive the call
        returncode = proc.wait()
        proc.stdout.close()
        proc.stderr.close()
    if on_lines is not None and pending and done:
        newlines += 1
        on_lines([pending])
    lines: list[str] = []
    raw = b"".join(out_chunks)
    if keep_raw:
        newlines = min(newlines, limit)
    elif raw:
        lines = raw.decode("utf-8", errors="replace").split("\n")
        if lines[-1] == "":
            lines.pop()
        if len(lines) > limit:
            lines = lines[:limit]
        newlines = len(lines)
        raw = b""
    stderr = b"".join(err_chunks).decode("utf-8", errors="replace")
    if returncode == 2 and nothing_searched(stderr):  # an empty folder, or filters no file passes: no match
        returncode, stderr = 1, ""
    return RgOutput(lines, 0 if stopped or timed_out else returncode, stderr, stopped, newlines, timed_out, raw)


def nothing_searched(stderr: str) -> bool:
    """Whether rg's only complaint is that no file was searched (it then exits 2, as for a real failure)."""
    rest = [
        line
        for line in stderr.splitlines()
        if line.strip() and not line.startswith(("rg: No files were searched", "Running with --debug"))
    ]
    return "No files were searched" in stderr and not rest


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
        return ToolError(
            f"{text.splitlines()[0].removeprefix('rg: ')}; use a type ripgrep knows (e.g. py, js, rust, go) or the glob parameter."
        )
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
        mode = os.stat(root).st_mode
    except FileNotFoundError:
        raise missing_path_error(root, ctx, what="Path") from None
    except (OSError, ValueError):
        raise ToolError(f"Cannot use the path {path_arg!r}; pass an existing file or directory.") from None
    kind = None if stat.S_ISDIR(mode) else special_kind(mode)
    if kind is not None:  # rg would read a FIFO or /dev/zero given by name for ever
        raise ToolError(refusal(ctx.display_path(root), kind))
    return root


def relative_arg(root: Path, ctx: ToolContext) -> str | None:
    """How to pass `root` to rg run in the project directory: relative when inside it, None for the project itself."""
    try:
        rel = root.relative_to(ctx.project_dir)
    except ValueError:
        return str(root)
    return None if str(rel) == "." else str(rel)


def noun_for(count: int, noun: str) -> str:
    """`noun` for `count` of them: "file" or "files"."""
    return noun if count == 1 else noun + "s"


def walk_cut_note(result: RgOutput, ctx: ToolContext, found: str) -> list[str]:
    """One sentence when the search was cut by the time or walk limit, with what was counted ("at least …")."""
    if result.timed_out:
        return [
            f"The search stopped after {ctx.time_limit:g} s without finishing: at least {found} so far "
            "(a very large tree, or a FIFO where rg expects an ignore file, does this); narrow the path or pattern."
        ]
    if result.stopped_early and result.line_count >= ctx.walk_limit:
        return [
            f"The search stopped after rg listed {plural(result.line_count, 'path')}: at least {found}. "
            "Narrow the path or pattern."
        ]
    return []


def null_lines(raw: bytes, context: bool = False, numbers: bool = True) -> list[str]:
    """rg's `--null` line output (`path NUL rest`) as `path:rest` lines, each path as `show_name` shows it.

    A path holding a newline stays one entry: a piece without NUL (other than the `--`
    between context groups) is the start of such a path. With `context` (rg run with line
    numbers), lines around a match keep rg's `path-12-text` form; `numbers` false drops the
    line numbers again (`path-text`).
    """
    pieces = raw.split(b"\n")[:-1]  # rg ends every line; what follows the last newline was cut off
    if not context and raw.count(b"\0") == len(pieces):
        paths = b"\n".join([piece.partition(b"\0")[0] for piece in pieces])
        # the usual case: plain ASCII names (no control byte, no `$` that could start `$'`), one NUL per line
        if paths.isascii() and b"$" not in paths and len(paths.translate(None, _CONTROL_BYTES)) == len(paths):
            return (
                b"\n".join(pieces).replace(b"\0", b":").decode("utf-8", errors="replace").split("\n") if pieces else []
            )
    out: list[str] = []
    last_path, last_shown = b"", ""
    carry: bytes | None = None
    for piece in pieces:  # rg ends every line; what follows the last newline was cut off
        if carry is not None:
            piece, carry = carry + b"\n" + piece, None
        path, nul, rest = piece.partition(b"\0")
        if not nul:
            if piece == b"--":
                out.append("--")
            elif piece:
                carry = piece
            continue
        if path != last_path:
            last_path, last_shown = path, show_name(path)
        text = rest.decode("utf-8", errors="replace")
        if not context:
            out.append(f"{last_shown}:{text}")
            continue
        number = _NUMBERED_LINE.match(text)
        sep = number.group(2) if number else ":"
        if number and not numbers:
            text = text[number.end() :]
        out.append(f"{last_shown}{sep}{text}")
    return out
