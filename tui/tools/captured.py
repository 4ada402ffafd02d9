"""Run a user's command for its output: read until the command itself exits or its time runs out, whichever first.

A command may leave a child holding its stdout (`setsid … &`, a daemon): reading to the end of
the pipe would wait for that child, past any timeout. Here the reading stops DRAIN_AFTER_EXIT_S
after the command's own exit (or at its deadline, or on `cancel`), whatever is left of its tree
is killed (`tui.tools.processes` finds `setsid` children too), and the command is judged by its
own exit status. The key helper, the status line and hooks run their commands through this.
"""

from __future__ import annotations

import os
import selectors
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from tui.tools.processes import TrackedProcess, tracker

#: the most of each stream kept (the rest is read and dropped, so a flood neither blocks nor fills memory)
KEEP_BYTES = 256 * 1024
#: after the command itself has exited, how long a child holding its pipes open may go on writing
DRAIN_AFTER_EXIT_S = 0.2
KILL_GRACE_S = 0.5
_POLL_S = 0.05


@dataclass
class CapturedRun:
    """What one run printed and how it ended."""

    stdout: bytes = b""
    stderr: bytes = b""
    #: the command's own exit status (negative: the signal that ended it), also after a timeout's kill
    exit_code: int | None = None
    timed_out: bool = False
    cancelled: bool = False
    #: the stream printed more than `keep_bytes` (the rest was dropped)
    stdout_cut: bool = False
    stderr_cut: bool = False
    #: something of its tree still held its output after it exited (and was killed)
    left_running: bool = False

    @property
    def truncated(self) -> bool:
        """Whether either stream was cut."""
        return self.stdout_cut or self.stderr_cut


def run_captured(
    argv: Sequence[str],
    *,
    cwd: Path | str,
    timeout: float,
    env: dict[str, str] | None = None,
    stdin: bytes = b"",
    keep_bytes: int = KEEP_BYTES,
    cancel: threading.Event | None = None,
    sweep: bool = False,
    on_stdout: Callable[[bytes], None] | None = None,
) -> CapturedRun:
    """Run `argv` with `stdin`, keep the head of stdout and stderr, end its whole tree; OSError when it cannot start.

    `sweep`: always look for (and kill) what is left of its tree, even with its group empty and its
    pipes closed (a child that cleared its environment is still found by its parent chain).
    """
    tracked = tracker().spawn(
        list(argv),
        env=env,
        cwd=str(cwd),
        stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    run = CapturedRun()
    deadline = time.monotonic() + timeout
    held = _read(tracked, stdin, deadline, cancel, keep_bytes, run, on_stdout)
    popen = tracked.popen
    while not (run.timed_out or run.cancelled) and popen.poll() is None:  # it closed its pipes but goes on
        if cancel is not None and cancel.is_set():
            run.cancelled = True
        elif time.monotonic() >= deadline:
            run.timed_out = True
        else:
            try:
                popen.wait(min(_POLL_S, max(0.0, deadline - time.monotonic())))
            except subprocess.TimeoutExpired:
                pass
    run.left_running = held
    if run.timed_out or run.cancelled:
        tracker().kill(tracked, KILL_GRACE_S)
    else:
        _finish(tracked, sweep or held)
    run.exit_code = popen.wait()
    return run


def _finish(tracked: TrackedProcess, sweep: bool) -> None:
    """Forget the ended command; whatever it left running is killed, never orphaned."""
    if not sweep:
        try:
            os.killpg(tracked.pid, 0)
        except (ProcessLookupError, PermissionError):
            tracker().forget(tracked)  # the group is empty and nothing held its pipes: no /proc sweep needed
            return
    tracker().kill(tracked, KILL_GRACE_S)


def _read(
    tracked: TrackedProcess,
    data: bytes,
    deadline: float,
    cancel: threading.Event | None,
    keep_bytes: int,
    run: CapturedRun,
    on_stdout: Callable[[bytes], None] | None = None,
) -> bool:
    """Write stdin, keep the head of each stream into `run`; True when a child still held the pipes after the exit."""
    popen = tracked.popen
    assert popen.stdout is not None and popen.stderr is not None
    out_fd, err_fd = popen.stdout.fileno(), popen.stderr.fileno()
    kept = {out_fd: bytearray(), err_fd: bytearray()}
    sel = selectors.DefaultSelector()
    view = memoryview(data)
    stdin_fd = -1
    if popen.stdin is not None:
        stdin_fd = popen.stdin.fileno()
        os.set_blocking(stdin_fd, False)
        sel.register(stdin_fd, selectors.EVENT_WRITE)
    for fd in kept:
        sel.register(fd, selectors.EVENT_READ)
    exited_at: float | None = None
    held = False
    try:
        while any(fd in kept for fd in sel.get_map()):
            now = time.monotonic()
            if exited_at is None and popen.poll() is not None:
                exited_at = now
            if exited_at is not None and now - exited_at > DRAIN_AFTER_EXIT_S:
                held = True  # a child keeps the pipes open: do not wait for it
                break
            if now >= deadline:
                run.timed_out = True
                break
            if cancel is not None and cancel.is_set():
                run.cancelled = True
                break
            wait = min(deadline - now, _POLL_S if exited_at is None else DRAIN_AFTER_EXIT_S)
            for key, _ in sel.select(wait):
                if key.fd == stdin_fd:
                    try:
                        sent = os.write(stdin_fd, view[:65536])
                    except OSError:  # it closed stdin without reading all of it
                        sent = len(view)
                    view = view[sent:]
                    if not view:
                        sel.unregister(stdin_fd)
                        _close(popen.stdin)
                    continue
                chunk = os.read(key.fd, 65536)
                if not chunk:
                    sel.unregister(key.fd)
                    continue
                buf = kept[key.fd]
                room = keep_bytes - len(buf)
                if room > 0:
                    buf += chunk[:room]
                if key.fd == out_fd and on_stdout is not None and room > 0:
                    on_stdout(bytes(buf))
                if len(chunk) > room:
                    if key.fd == out_fd:
                        run.stdout_cut = True
                    else:
                        run.stderr_cut = True
    finally:
        sel.close()
        for stream in (popen.stdin, popen.stdout, popen.stderr):
            _close(stream)
    run.stdout, run.stderr = bytes(kept[out_fd]), bytes(kept[err_fd])
    return held


def _close(stream: object) -> None:
    try:
        stream.close()  # type: ignore[attr-defined]
    except (OSError, AttributeError):
        pass
