"""Start a command contained: a `preexec_fn` that builds the namespaces and seals the child.

Two or three processes per command, all forked (no new interpreter, so the cost is a few
milliseconds): the *keeper* (the Popen child) clones the *init*, born in new user, mount,
network, PID and IPC namespaces (PID 1 of the new PID namespace; a raw clone, so no at-fork
handler runs and a threaded keeper is no problem), which binds protected paths read-only,
hides the deny-read ones and mounts a private /proc. Without a proxy the
init is the command: it drops capabilities, restricts itself with Landlock and seccomp, and
returns to Popen to exec. With one, the init forwards the proxy port and reaps, and forks the
command. When PID 1 exits, the kernel kills whatever the command left behind (`setsid`,
double fork, `nohup`); when agent-tui kills the keeper's group, the init dies with it
(parent-death signal).
"""

from __future__ import annotations

import os
import selectors
import signal
import socket
from collections.abc import Callable

from tui.sandbox import landlock, namespaces, seccomp
from tui.sandbox.plan import PROXY_PORT, Plan

RESET_SIGNALS = (
    signal.SIGINT,
    signal.SIGTERM,
    signal.SIGHUP,
    signal.SIGQUIT,
    signal.SIGUSR1,
    signal.SIGUSR2,
    signal.SIGCHLD,
    signal.SIGWINCH,
    signal.SIGPIPE,
    signal.SIGXFSZ,
)
DEV_WRITABLE = ("/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx", "/dev/pts")


def preexec_for(plan: Plan) -> Callable[[], None]:
    """The `preexec_fn` that runs the Popen child inside the sandbox described by `plan`."""
    landlock.libc()  # resolved before the fork: the child must not load libraries
    program = seccomp.program() if seccomp.supported() else b""
    uid, gid = os.getuid(), os.getgid()
    fork_into = namespaces.fork_into()

    def preexec() -> None:
        try:
            _keeper(plan, program, uid, gid, fork_into)
        except OSError as exc:
            os.write(2, f"agent-tui sandbox: could not start: {exc}\n".encode())
            raise

    return preexec


def _exit_code(status: int) -> int:
    code = os.waitstatus_to_exitcode(status)
    return 128 - code if code < 0 else code


def _close_all(keep: int = -1) -> None:
    if keep >= 0:
        os.closerange(0, keep)
        os.closerange(keep + 1, 1 << 20)
    else:
        os.closerange(0, 1 << 20)


def _default_signals() -> None:
    for signum in RESET_SIGNALS:
        signal.signal(signum, signal.SIG_DFL)


def mounts(plan: Plan) -> None:
    """Git's folders pinned, protected paths read-only, deny-read ones hidden, a private /dev/shm, loopback up."""
    for (
        path
    ) in plan.pins:  # outer first; a mount point cannot be renamed or removed (EBUSY), its content stays writable
        namespaces.pin(path)
    for path in plan.read_only:
        namespaces.bind_read_only(path)
    for path in plan.hide_dirs:
        namespaces.hide_dir(path)
    for path in plan.hide_files:
        namespaces.bind_read_only(path, plan.empty_file)
    if os.path.isdir("/dev/shm"):  # POSIX shared memory stays inside the sandbox
        namespaces.mount("tmpfs", "/dev/shm", "tmpfs", namespaces.MS_NOSUID | namespaces.MS_NODEV, "mode=1777")
    namespaces.loopback_up()


def _keeper(plan: Plan, program: bytes, uid: int, gid: int, fork_into: Callable[[int], int]) -> None:
    _default_signals()
    # the init is born in the namespaces (clone, not unshare: a fork handler may have started a thread here)
    pid = fork_into(namespaces.ALL)
    if pid == 0:
        namespaces.die_with_parent()  # (no race check: a parent outside the PID namespace reads as pid 0)
        namespaces.map_ids(uid, gid)
        namespaces.make_private()
        mounts(plan)
        _init(plan, program, fork_into)
        return  # only the command's process gets here
    _close_all()
    _, status = os.waitpid(pid, 0)
    os._exit(_exit_code(status))


def _init(plan: Plan, program: bytes, fork_into: Callable[[int], int]) -> None:
    namespaces.mount_proc()
    if not plan.proxy_socket:
        # no port to forward: the command itself is PID 1 (one fork less); when it exits, the kernel
        # ends everything it left in the namespace
        _confine(plan, program)
        return
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", PROXY_PORT))
    listener.listen(64)
    # the raw clone, not os.fork(): the keeper ran Python's after-fork handlers (it is Popen's child), and a thread
    # one of them started is missing here, holding what os.fork() would take (the import lock, logging's lock)
    pid = fork_into(0)
    if pid == 0:
        listener.close()
        _confine(plan, program)
        return
    _close_all(listener.fileno())
    try:
        code = _serve(pid, listener, plan.proxy_socket)
    except BaseException:  # the init must never return into Popen's exec path
        code = 125
    os._exit(code)


def _serve(command: int, listener: socket.socket, target: str | None) -> int:
    """Relay connections to the proxy's socket while reaping, until the command exits."""
    pidfd = os.pidfd_open(command)
    selector = selectors.DefaultSelector()
    selector.register(pidfd, selectors.EVENT_READ, "exit")
    selector.register(listener, selectors.EVENT_READ, "accept")
    peers: dict[socket.socket, socket.socket] = {}
    while True:
        for key, _ in selector.select(timeout=1.0):
            if key.data == "exit":
                _, status = os.waitpid(command, 0)
                return _exit_code(status)
            if key.data == "accept":
                conn, _ = listener.accept()
                upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                try:
                    upstream.connect(target or "")
                except OSError:
                    conn.close()
                    upstream.close()
                    continue
                peers[conn], peers[upstream] = upstream, conn
                selector.register(conn, selectors.EVENT_READ, "data")
                selector.register(upstream, selectors.EVENT_READ, "data")
                continue
            sock = key.fileobj
            assert isinstance(sock, socket.socket)
            other = peers.get(sock)
            try:
                data = sock.recv(65536)
                if data and other is not None:
                    other.sendall(data)
            except OSError:
                data = b""
            if not data:
                for end in (sock, other):
                    if end is not None and end in peers:
                        selector.unregister(end)
                        peers.pop(end, None)
                        end.close()
        ended = _reap_orphans(command)
        if ended is not None:  # the command ended after the select: it was among those reaped
            return _exit_code(ended)


def _reap_orphans(command: int) -> int | None:
    """Reap the children that ended (orphans re-parented to the init); the command's status if it was one."""
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return None
        if pid == 0:
            return None
        if pid == command:
            return status


def _confine(plan: Plan, program: bytes) -> None:
    ruleset = landlock.Ruleset(plan.abi)
    ruleset.allow("/", landlock.READ)
    for root in plan.write_roots:
        ruleset.allow(root, landlock.READ | landlock.WRITE)
    for path in (*plan.write_files, *DEV_WRITABLE):
        ruleset.allow(path, landlock.READ | landlock.FILE_WRITE)
    ruleset.allow("/dev/shm", landlock.READ | landlock.WRITE)
    namespaces.drop_capabilities()
    ruleset.restrict_self()
    if program:
        seccomp.install(landlock.libc(), program)
