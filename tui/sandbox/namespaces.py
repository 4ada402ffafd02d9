"""Unprivileged namespaces from inside the child: user, mount, network, PID and IPC; mounts; capabilities."""

from __future__ import annotations

import ctypes
import fcntl
import os
import platform
import socket
import struct
from collections.abc import Callable

from tui.sandbox.landlock import libc

CLONE_NEWNS = 0x00020000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
ALL = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWPID | CLONE_NEWIPC

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_NOATIME, MS_NODIRATIME, MS_BIND, MS_REC = 32, 1024, 2048, 4096, 16384
MS_PRIVATE, MS_RELATIME = 1 << 18, 1 << 21
# statvfs f_flag bits -> the mount flags a remount in a user namespace must keep (the kernel locks them)
LOCKED_FLAGS = (
    (os.ST_NOSUID, MS_NOSUID),
    (os.ST_NODEV, MS_NODEV),
    (os.ST_NOEXEC, MS_NOEXEC),
    (os.ST_NOATIME, MS_NOATIME),
    (os.ST_NODIRATIME, MS_NODIRATIME),
    (os.ST_RELATIME, MS_RELATIME),
)
SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1
PR_SET_PDEATHSIG, PR_CAPBSET_DROP, PR_SET_SECUREBITS, PR_CAP_AMBIENT = 1, 24, 28, 47
SECURE_NOROOT_ALL = 0x0F | 0xC0  # NOROOT, NO_SETUID_FIXUP, NO_CAP_AMBIENT_RAISE, each locked
CAP_LAST = 63


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _write(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


#: clone(2)'s number; its first argument is the flags on both, and the others are all zero here
CLONE_SYSCALL = {"x86_64": 56, "aarch64": 220}
SIGCHLD = 17


def fork_into() -> Callable[[int], int]:
    """A fork that is born in new namespaces: `call(flags)` is 0 in the child and the child's pid in the parent.

    It is the raw clone(2) system call, resolved now (before any fork): no at-fork handler runs, so no library
    can start a thread in the child (gRPC's handler does, and unshare(CLONE_NEWUSER) refuses a threaded
    caller; clone does not). The call keeps the GIL (PyDLL), so the child's Python goes on as this thread.
    """
    number = CLONE_SYSCALL[platform.machine()]
    raw = ctypes.PyDLL(None, use_errno=True).syscall
    raw.restype = ctypes.c_long

    def call(flags: int) -> int:
        pid = int(raw(ctypes.c_long(number), ctypes.c_ulong(flags | SIGCHLD), None, None, None, None))
        if pid < 0:
            err = ctypes.get_errno()
            raise OSError(err, f"clone: {os.strerror(err)}")
        return pid

    return call


def map_ids(uid: int, gid: int) -> None:
    """Map this user and group onto themselves in the new user namespace."""
    _write("/proc/self/setgroups", "deny")
    _write("/proc/self/uid_map", f"{uid} {uid} 1")
    _write("/proc/self/gid_map", f"{gid} {gid} 1")


def mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    """mount(2), raising OSError."""

    def enc(s: str | None) -> bytes | None:
        return s.encode() if s is not None else None

    _check(libc().mount(enc(source), target.encode(), enc(fstype), ctypes.c_ulong(flags), enc(data)), f"mount {target}")


def make_private() -> None:
    """Stop mount events from leaking back to the host's namespace."""
    mount(None, "/", None, MS_REC | MS_PRIVATE)


def bind_read_only(path: str, source: str | None = None) -> None:
    """Bind `source` (default: `path` itself) over `path`, read-only."""
    mount(source or path, path, None, MS_BIND | MS_REC)
    kept = 0
    flags = os.statvfs(path).f_flag
    for st_flag, ms_flag in LOCKED_FLAGS:
        if flags & st_flag:
            kept |= ms_flag
    mount(None, path, None, MS_BIND | MS_REMOUNT | MS_RDONLY | kept)


def pin(path: str) -> None:
    """Bind a folder onto itself (writable): as a mount point it can be neither renamed nor removed."""
    mount(path, path, None, MS_BIND | MS_REC)


def hide_dir(path: str) -> None:
    """Cover a directory with an empty, unreadable, read-only tmpfs."""
    mount("tmpfs", path, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=000,size=4k")


def mount_proc() -> None:
    """A /proc that shows only this PID namespace."""
    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)


def loopback_up() -> None:
    """Bring `lo` up in the new network namespace (loopback inside it works; nothing else exists)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        req = struct.pack("16sH22x", b"lo", 0)
        flags = struct.unpack("16sH22x", fcntl.ioctl(sock.fileno(), SIOCGIFFLAGS, req))[1]
        fcntl.ioctl(sock.fileno(), SIOCSIFFLAGS, struct.pack("16sH22x", b"lo", flags | IFF_UP))


def die_with_parent(signum: int = 9) -> None:
    """Ask the kernel to send `signum` when the parent process exits."""
    libc().prctl(PR_SET_PDEATHSIG, signum, 0, 0, 0)


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def drop_capabilities() -> None:
    """Give up every capability for good (even as uid 0 inside the namespace, and across exec)."""
    c = libc()
    for cap in range(CAP_LAST + 1):
        c.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)  # EINVAL past the kernel's last capability
    c.prctl(PR_CAP_AMBIENT, 4, 0, 0, 0)  # PR_CAP_AMBIENT_CLEAR_ALL
    _check(c.prctl(PR_SET_SECUREBITS, SECURE_NOROOT_ALL, 0, 0, 0), "securebits")
    data = (_CapData * 2)()
    _check(c.capset(ctypes.byref(_CapHeader(0x20080522, 0)), data), "capset")
