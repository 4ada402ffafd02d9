"""Landlock through raw syscalls (ctypes): the ABI probe, a ruleset built from a policy, restrict_self."""

from __future__ import annotations

import ctypes
import os
import platform

# syscall numbers are the same on x86_64 and the generic table (arm64, riscv64)
SYS_CREATE_RULESET = 444
SYS_ADD_RULE = 445
SYS_RESTRICT_SELF = 446
CREATE_RULESET_VERSION = 1
RULE_PATH_BENEATH = 1
PR_SET_NO_NEW_PRIVS = 38

EXECUTE = 1 << 0
WRITE_FILE = 1 << 1
READ_FILE = 1 << 2
READ_DIR = 1 << 3
REMOVE_DIR = 1 << 4
REMOVE_FILE = 1 << 5
MAKE_CHAR = 1 << 6
MAKE_DIR = 1 << 7
MAKE_REG = 1 << 8
MAKE_SOCK = 1 << 9
MAKE_FIFO = 1 << 10
MAKE_BLOCK = 1 << 11
MAKE_SYM = 1 << 12
REFER = 1 << 13  # ABI 2
TRUNCATE = 1 << 14  # ABI 3

SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0  # ABI 6
SCOPE_SIGNAL = 1 << 1  # ABI 6

READ = EXECUTE | READ_FILE | READ_DIR
FILE_WRITE = WRITE_FILE | TRUNCATE
WRITE = (
    FILE_WRITE
    | REMOVE_DIR
    | REMOVE_FILE
    | MAKE_CHAR
    | MAKE_DIR
    | MAKE_REG
    | MAKE_SOCK
    | MAKE_FIFO
    | MAKE_BLOCK
    | MAKE_SYM
    | REFER
)
#: the rights a file (not a directory) can carry in a rule
FILE_RIGHTS = EXECUTE | READ_FILE | FILE_WRITE


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


_libc: ctypes.CDLL | None = None


def libc() -> ctypes.CDLL:
    """The C library, loaded once (before any fork, so a child never calls dlopen)."""
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
        _libc.syscall.restype = ctypes.c_long
    return _libc


def abi_version() -> int:
    """The running kernel's Landlock ABI, 0 when Landlock is missing or disabled."""
    if platform.system() != "Linux" or platform.machine() not in ("x86_64", "aarch64", "riscv64"):
        return 0
    try:
        version = libc().syscall(SYS_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(CREATE_RULESET_VERSION))
    except (OSError, AttributeError):
        return 0
    return max(int(version), 0)


def handled_fs(abi: int) -> int:
    """Every filesystem right this ABI knows (device ioctls stay unhandled: terminals need them)."""
    rights = READ | WRITE
    if abi < 2:
        rights &= ~REFER
    if abi < 3:
        rights &= ~TRUNCATE
    return rights


def _check(result: int, what: str) -> int:
    if result < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"landlock {what}: {os.strerror(err)}")
    return result


class Ruleset:
    """A Landlock ruleset being filled: rights under paths; `restrict_self` seals the calling thread."""

    def __init__(self, abi: int) -> None:
        self.abi = abi
        self.handled = handled_fs(abi)
        attr = _RulesetAttr(self.handled, 0, SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL if abi >= 6 else 0)
        size = ctypes.sizeof(_RulesetAttr) if abi >= 6 else 16 if abi >= 4 else 8
        self.fd = _check(
            libc().syscall(SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0)),
            "create_ruleset",
        )

    def allow(self, path: str, rights: int) -> bool:
        """Grant `rights` beneath `path`; False when the path does not exist."""
        try:
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
        except OSError:
            return False
        try:
            if not os.path.isdir(path):
                rights &= FILE_RIGHTS
            attr = _PathBeneathAttr(rights & self.handled, fd)
            _check(
                libc().syscall(SYS_ADD_RULE, self.fd, RULE_PATH_BENEATH, ctypes.byref(attr), ctypes.c_uint32(0)),
                f"add_rule {path}",
            )
        finally:
            os.close(fd)
        return True

    def restrict_self(self) -> None:
        """Seal this thread (and every process it starts) under the ruleset."""
        _check(libc().prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
        _check(libc().syscall(SYS_RESTRICT_SELF, self.fd, ctypes.c_uint32(0)), "restrict_self")
        os.close(self.fd)
