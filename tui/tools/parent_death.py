"""Children die with agent-tui: PR_SET_PDEATHSIG on each direct child, and the guard for everything else.

The kernel sends the parent-death signal when the *thread* that started the child exits, not
the process; so every child is started on one thread that lives as long as agent-tui
(`on_spawn_thread`), and a turn's worker thread that ends does not kill the dev server it
started. A plain command gets the signal from `setpriv --pdeathsig KILL` (util-linux), which sets
it and execs the command (a Python `preexec_fn` would turn subprocess's vfork into a fork: 10 to
60 ms more per command in a big process); a sandboxed one sets it in its own child
(tui/sandbox/vfork.py, launch.py). Grandchildren are not direct children: the guard
(tui/system/leftovers.py), started here with the first child, ends them, and ends everything
where setpriv is missing.
"""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import threading
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar

T = TypeVar("T")
PR_SET_PDEATHSIG = 1


class _Call(Generic[T]):
    """One start handed to the spawn thread, and its outcome (no concurrent.futures: 30 ms of imports at start)."""

    def __init__(self, start: Callable[[], T]) -> None:
        self.start = start
        self.done = threading.Event()
        self.value: T | None = None
        self.error: BaseException | None = None

    def result(self) -> T:
        self.done.wait()
        if self.error is not None:
            raise self.error
        return self.value  # type: ignore[return-value]


_calls: deque[_Call[Any]] = deque()
_wake = threading.Condition()
_thread: threading.Thread | None = None
_lock = threading.Lock()
_setpriv: list[str] | None = None
#: the guard's process, and the write end of its pipe (held, never written, until this process ends)
guard_pid: int | None = None
_guard_fd: int | None = None
#: how long `release` waits for the guard to see its pipe close and exit
GUARD_EXIT_SECONDS = 2.0


def on_spawn_thread(start: Callable[[], T]) -> T:
    """Run `start` (which starts a child) on the thread that outlives every child; the main thread runs it itself."""
    global _thread
    current = threading.current_thread()
    if current is threading.main_thread() or current is _thread:
        return start()
    call = _Call(start)
    with _lock:  # queued under the lock: `release` never stops the thread between its start and this call
        if _thread is None:
            _thread = threading.Thread(target=_serve, name="agent-tui-spawner", daemon=True)
            _thread.start()
        with _wake:
            _calls.append(call)
            _wake.notify()
    return call.result()


def _serve() -> None:
    while True:
        with _wake:
            while not _calls:
                _wake.wait()
            call = _calls.popleft()
        if call.start is _stop:  # release(): the thread ends here
            call.done.set()
            return
        try:
            call.value = call.start()
        except BaseException as exc:  # noqa: BLE001 - handed to the caller
            call.error = exc
        call.done.set()


def _stop() -> None:
    """The call that ends the spawn thread (see `release`)."""


def release() -> None:
    """With no child of ours left: end the spawn thread and the guard (each starts again with the next child).

    The owner's exit path calls this after every child has ended (`ProcessTracker.release_helpers`): a closed
    app leaves no thread, descriptor or process behind. The guard sees its pipe close, finds nothing of ours
    to end, and exits; it is reaped here.
    """
    global _thread, guard_pid, _guard_fd
    stop: _Call[None] = _Call(_stop)
    with _lock:
        thread, _thread = _thread, None
        pid, fd = guard_pid, _guard_fd
        guard_pid, _guard_fd = None, None
        if thread is not None:
            with _wake:  # after every start queued so far
                _calls.append(stop)
                _wake.notify()
    if thread is not None and thread is not threading.current_thread():
        thread.join()
    if fd is not None and fd >= 0:
        os.close(fd)
    if pid is not None:
        _reap(pid, GUARD_EXIT_SECONDS)


def _reap(pid: int, within: float) -> None:
    """Wait up to `within` seconds for our child `pid` to exit, and reap it."""
    import time

    deadline = time.monotonic() + within
    while True:
        try:
            if os.waitpid(pid, os.WNOHANG)[0] or time.monotonic() > deadline:
                return
        except ChildProcessError:  # reaped by someone else
            return
        time.sleep(0.005)


def with_death_signal(argv: Sequence[str], env: dict[str, str], cwd: Any) -> list[str]:
    """`argv` behind `setpriv --pdeathsig KILL --` where that works; a missing program raises as Popen would."""
    prefix = _setpriv_prefix()
    if not prefix:
        return list(argv)
    import shutil

    program = os.fspath(argv[0])
    if os.sep in program:
        found = program if os.path.isabs(program) or cwd is None else os.path.join(os.fspath(cwd), program)
        if not os.path.exists(found):
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), program)
        if not os.access(found, os.X_OK) or os.path.isdir(found):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), program)
    elif shutil.which(program, path=env.get("PATH", os.defpath)) is None:
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), program)
    return [*prefix, *argv]


def _setpriv_prefix() -> list[str]:
    """`[setpriv, --pdeathsig, KILL, --]` once it has been seen to work here, else []."""
    global _setpriv
    if _setpriv is None:
        import shutil

        _setpriv = []
        found = shutil.which("setpriv") if sys.platform == "linux" else None
        if found:
            prefix = [found, "--pdeathsig", "KILL", "--"]
            try:
                ok = (
                    subprocess.run(
                        [*prefix, found, "--version"],
                        stdin=subprocess.DEVNULL,
                        stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL,
                        timeout=10,
                    ).returncode
                    == 0
                )
            except (OSError, subprocess.SubprocessError):
                ok = False
            _setpriv = prefix if ok else []
    return _setpriv


def death_signal_preexec(inner: Callable[[], None]) -> Callable[[], None]:
    """`inner` (a preexec_fn that forks anyway), after the child asked for SIGKILL when agent-tui ends."""
    if sys.platform != "linux":
        return inner
    import ctypes

    prctl = ctypes.CDLL(None, use_errno=True).prctl  # resolved before the fork: the child loads nothing
    parent = os.getpid()

    def preexec() -> None:
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:  # agent-tui ended between the fork and the prctl
            os._exit(1)
        inner()

    return preexec


def ensure_guard(mark: str) -> None:
    """Start the guard once: when this process ends, however, it ends what `mark` started and removes its temp files."""
    global guard_pid, _guard_fd
    if _guard_fd is not None or not hasattr(os, "posix_spawn"):
        return
    with _lock:
        if _guard_fd is not None:
            return
        import tempfile

        from tui.system import leftovers

        read_fd, write_fd = os.pipe()  # both ends close-on-exec: no child of ours inherits the write end
        argv = [sys.executable, "-I", "-S", leftovers.__file__, "--guard", mark, tempfile.gettempdir()]
        actions = [
            (os.POSIX_SPAWN_DUP2, read_fd, 0),
            (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
            (os.POSIX_SPAWN_DUP2, 1, 2),
        ]
        try:  # in its own session: a signal to agent-tui's process group does not reach it
            guard_pid = os.posix_spawn(sys.executable, argv, dict(os.environ), file_actions=actions, setsid=True)
            _guard_fd = write_fd
        except OSError:
            os.close(write_fd)
            _guard_fd = -1  # no guard: the next start cleans up instead
        finally:
            os.close(read_fd)
