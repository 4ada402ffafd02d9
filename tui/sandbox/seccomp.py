"""A small seccomp filter (classic BPF built by hand) for what Landlock and namespaces leave open.

Denied with EPERM: new unix-domain sockets (a path socket such as docker.sock is reachable from any
network namespace; `socketpair` stays allowed), new namespaces (`unshare`, `setns`, `clone` with a
CLONE_NEW* flag), io_uring (it would bypass this filter), the kernel keyrings, and TIOCSTI (typing
into the terminal). `clone3` answers ENOSYS so the C library falls back to `clone`, whose flags the
filter can see. Foreign-architecture system calls (x32, int 0x80) are denied wholesale.
"""

from __future__ import annotations

import ctypes
import errno
import platform
import struct

PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
RET_ALLOW = 0x7FFF0000
RET_ERRNO = 0x00050000
LD_ABS = 0x20
JEQ = 0x15
JGE = 0x35
JSET = 0x45
RET = 0x06
AF_UNIX = 1
TIOCSTI = 0x5412
CLONE_NEW_FLAGS = 0x7E020080  # NEWNS|NEWCGROUP|NEWUTS|NEWIPC|NEWUSER|NEWPID|NEWNET|NEWTIME

# (audit arch, syscall numbers) per machine
ARCHES = {
    "x86_64": (
        0xC000003E,
        {
            "socket": 41,
            "clone": 56,
            "clone3": 435,
            "unshare": 272,
            "setns": 308,
            "ioctl": 16,
            "keyctl": 250,
            "add_key": 248,
            "request_key": 249,
            "io_uring_setup": 425,
        },
    ),
    "aarch64": (
        0xC00000B7,
        {
            "socket": 198,
            "clone": 220,
            "clone3": 435,
            "unshare": 97,
            "setns": 268,
            "ioctl": 29,
            "keyctl": 219,
            "add_key": 217,
            "request_key": 218,
            "io_uring_setup": 425,
        },
    ),
}
OFF_NR, OFF_ARCH = 0, 4


def _arg(i: int) -> int:
    """Offset of the low 32 bits of argument `i` in struct seccomp_data (little-endian)."""
    return 16 + 8 * i


class _Fprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def program(machine: str | None = None) -> bytes:
    """The filter as packed sock_filter instructions for `machine` (default: this one)."""
    arch, nr = ARCHES[machine or platform.machine()]
    eperm, enosys = RET_ERRNO | errno.EPERM, RET_ERRNO | errno.ENOSYS
    # each entry: (code, jt label or 0, jf label or 0, k); labels are resolved to relative jumps
    code: list[tuple[int, str | int, str | int, int]] = [
        (LD_ABS, 0, 0, OFF_ARCH),
        (JEQ, 0, "eperm", arch),
        (LD_ABS, 0, 0, OFF_NR),
        (JGE, "eperm", 0, 0x40000000),  # x32 calls
        (JEQ, "socket", 0, nr["socket"]),
        (JEQ, "clone", 0, nr["clone"]),
        (JEQ, "ioctl", 0, nr["ioctl"]),
        (JEQ, "enosys", 0, nr["clone3"]),
    ]
    for name in ("unshare", "setns", "keyctl", "add_key", "request_key", "io_uring_setup"):
        code.append((JEQ, "eperm", 0, nr[name]))
    # one row per label and its instructions, kept as written: each ignore is about its row's label tuple
    # fmt: off
    code += [
        (RET, 0, 0, RET_ALLOW),
        ("socket", 0, 0, 0), (LD_ABS, 0, 0, _arg(0)), (JEQ, "eperm", 0, AF_UNIX), (RET, 0, 0, RET_ALLOW),  # type: ignore[list-item]
        ("clone", 0, 0, 0), (LD_ABS, 0, 0, _arg(0)), (JSET, "eperm", 0, CLONE_NEW_FLAGS), (RET, 0, 0, RET_ALLOW),  # type: ignore[list-item]
        ("ioctl", 0, 0, 0), (LD_ABS, 0, 0, _arg(1)), (JEQ, "eperm", 0, TIOCSTI), (RET, 0, 0, RET_ALLOW),  # type: ignore[list-item]
        ("eperm", 0, 0, 0), (RET, 0, 0, eperm),  # type: ignore[list-item]
        ("enosys", 0, 0, 0), (RET, 0, 0, enosys),  # type: ignore[list-item]
    ]
    # fmt: on
    labels: dict[str, int] = {}
    body: list[tuple[int, str | int, str | int, int]] = []
    for entry in code:
        if isinstance(entry[0], str):
            labels[entry[0]] = len(body)
        else:
            body.append(entry)
    out = b""
    for index, (op, jt, jf, k) in enumerate(body):
        jt_n = labels[jt] - index - 1 if isinstance(jt, str) else jt
        jf_n = labels[jf] - index - 1 if isinstance(jf, str) else jf
        out += struct.pack("=HBBI", op, jt_n, jf_n, k)
    return out


def supported() -> bool:
    """Whether this machine has a filter here."""
    return platform.system() == "Linux" and platform.machine() in ARCHES


def install(libc: ctypes.CDLL, filter_code: bytes) -> None:
    """Load the filter into the calling thread (no_new_privs must already be set)."""
    buf = ctypes.create_string_buffer(filter_code, len(filter_code))
    prog = _Fprog(len(filter_code) // 8, ctypes.cast(buf, ctypes.c_void_p))
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0:
        err = ctypes.get_errno()
        raise OSError(err, "seccomp filter refused")
