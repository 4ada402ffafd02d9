"""Start a contained command with one `clone(CLONE_VM | CLONE_VFORK | CLONE_NEW*)`: no copy of agent-tui.

A forked child of agent-tui copies its page tables and then faults on every page its Python
touches: most of a sandboxed command's start-up time went there (and into a second fork for
the PID namespace). Here the child shares agent-tui's memory, like the vfork that subprocess
uses, while the calling thread waits in `clone` (a PyDLL call: it keeps the GIL, so the
child's Python runs as that thread). The child is born in the new user, mount, network, PID
(it is PID 1) and IPC namespaces; its Python sets up the mounts, Landlock, capabilities and
seccomp (the very steps of `launch`), then *returns*, so every Python frame is unwound before
the exec. The exec itself is a ucontext chained after the Python function (makecontext), with a
last context that calls `_exit(127)` if the exec fails.
"""

from __future__ import annotations

import ctypes
import gc
import mmap
import os
import shutil
import signal
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from tui.sandbox import landlock, launch, namespaces
from tui.sandbox.plan import Plan

if TYPE_CHECKING:
    from _ctypes import CFuncPtr

CLONE_VM, CLONE_VFORK = 0x00000100, 0x00004000
UCONTEXT_BYTES = 8192  # more than glibc's ucontext_t on x86_64 (968) and aarch64 (4560)
UC_LINK, UC_STACK_SP, UC_STACK_SIZE = 8, 16, 32  # offsets, the same on both
PYTHON_STACK, SMALL_STACK = 4 << 20, 64 << 10
SKIP_SIGNALS = (signal.SIGKILL, signal.SIGSTOP)

_VOIDFN = ctypes.CFUNCTYPE(None)
_lock = threading.Lock()


def _address(fn: CFuncPtr) -> int:
    return int(ctypes.cast(fn, ctypes.c_void_p).value or 0)


def _stack(size: int) -> tuple[mmap.mmap, int]:
    region = mmap.mmap(-1, size)
    return region, ctypes.addressof(ctypes.c_char.from_buffer(region))


class _Context:
    """A ucontext on its own stack that calls `fn(*args)` and then goes on to `link`."""

    def __init__(self, size: int, link: _Context | None) -> None:
        self.buf = ctypes.create_string_buffer(UCONTEXT_BYTES)
        self.region, base = _stack(size)
        if landlock.libc().getcontext(self.buf) != 0:
            raise OSError(ctypes.get_errno(), "getcontext")
        ctypes.c_void_p.from_buffer(self.buf, UC_LINK).value = ctypes.addressof(link.buf) if link else None
        ctypes.c_void_p.from_buffer(self.buf, UC_STACK_SP).value = base
        ctypes.c_size_t.from_buffer(self.buf, UC_STACK_SIZE).value = size

    def make(self, fn: int, *args: object) -> None:
        landlock.libc().makecontext(self.buf, ctypes.c_void_p(fn), len(args), *args)

    def close(self) -> None:
        try:
            self.region.close()
        except BufferError:  # a ctypes view still points at it; the garbage collector frees it later
            pass


def resolve(program: str, env: dict[str, str]) -> str:
    """The file `program` names (PATH from `env`); FileNotFoundError when there is none."""
    found = program if "/" in program else shutil.which(program, path=env.get("PATH", os.defpath))
    if not found or not os.access(found, os.X_OK):
        raise FileNotFoundError(2, f"No such file or directory: {program!r}")
    return found


def spawn(
    argv: Sequence[str],
    env: dict[str, str],
    cwd: str,
    fds: tuple[int, int, int],
    plan: Plan,
    program: bytes,
    uid: int,
    gid: int,
) -> int:
    """Start `argv` contained by `plan` with `fds` as stdin/stdout/stderr, in its own session; its pid.

    Raises OSError when the command cannot be found, RuntimeError when the sandbox could not be set up.
    """
    path = resolve(argv[0], env)
    c_argv = (ctypes.c_char_p * (len(argv) + 1))(*[os.fsencode(a) for a in argv], None)
    c_env = (ctypes.c_char_p * (len(env) + 1))(*[os.fsencode(f"{k}={v}") for k, v in env.items()], None)
    c_path = ctypes.create_string_buffer(os.fsencode(path))
    errors: list[str] = []

    def child() -> None:
        try:
            _setup(fds, cwd, plan, program, uid, gid)
        except BaseException as exc:  # noqa: BLE001 - reported by the parent; the exec is made to fail
            errors.append(str(exc) or type(exc).__name__)
            c_path.value = b""

    callback = _VOIDFN(child)
    libc = landlock.libc()
    with _lock:
        fail = _Context(SMALL_STACK, None)
        run = _Context(SMALL_STACK, fail)  # captured with this thread's signal mask: the exec gets it back
        old_mask = signal.pthread_sigmask(signal.SIG_BLOCK, signal.valid_signals())
        try:
            setup = _Context(PYTHON_STACK, run)  # captured with every signal blocked
            fail.make(_address(libc._exit), ctypes.c_int(127))
            run.make(_address(libc.execve), c_path, c_argv, c_env)
            setup.make(_address(callback))
            start_region, start = _stack(SMALL_STACK)
            was_enabled = gc.isenabled()
            gc.disable()  # no finalizer of agent-tui's garbage may run in the child
            try:
                pid = _clone()(
                    _address(libc.setcontext),
                    ctypes.c_void_p(start + SMALL_STACK - 64),
                    launch_flags(),
                    ctypes.c_void_p(ctypes.addressof(setup.buf)),
                )
            finally:
                if was_enabled:
                    gc.enable()
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, old_mask)
        # the child has exec'd or exited: nothing of it runs in this memory any more
        for context in (fail, run, setup):
            context.close()
        start_region.close()
    if pid < 0:
        raise OSError(ctypes.get_errno(), "clone")
    if errors:
        os.waitpid(pid, 0)
        raise RuntimeError(errors[0])
    return int(pid)


def launch_flags() -> int:
    return CLONE_VM | CLONE_VFORK | signal.SIGCHLD | namespaces.ALL


_pyclone: Callable[..., int] | None = None


def _clone() -> Callable[..., int]:
    """glibc's clone(), called without releasing the GIL (the child runs Python as this thread)."""
    global _pyclone
    if _pyclone is None:
        fn = ctypes.PyDLL(None).clone
        fn.restype = ctypes.c_int
        fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p]
        _pyclone = fn
    return _pyclone


def _setup(fds: tuple[int, int, int], cwd: str, plan: Plan, program: bytes, uid: int, gid: int) -> None:
    """In the child (PID 1 of its namespaces): descriptors, session, mounts, then the seal (launch's steps)."""
    libc = landlock.libc()
    for signum in range(1, signal.NSIG):  # the parent's handlers must not run here (this is not its thread)
        if signum not in SKIP_SIGNALS:
            libc.signal(signum, ctypes.c_void_p(0))  # SIG_DFL, in this process's own copy of the table
    os.setsid()
    namespaces.die_with_parent()  # agent-tui's spawning thread ends with it; then PID 1 and its namespace go
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
    os.closerange(3, 1 << 20)  # this process's copy of the descriptor table
    os.chdir(cwd)
    namespaces.map_ids(uid, gid)
    namespaces.make_private()
    launch.mounts(plan)
    namespaces.mount_proc()
    launch._confine(plan, program)
