"""The macOS Seatbelt profile (`sandbox-exec -p`) with the same rules as the Linux sandbox.

Untested on macOS itself (no Mac here): the text is unit-tested, the run path is not.
"""

from __future__ import annotations

from collections.abc import Sequence

SANDBOX_EXEC = "/usr/bin/sandbox-exec"
DEV_WRITABLE = ("/dev/null", "/dev/zero", "/dev/tty", "/dev/dtracehelper")


def quote(path: str) -> str:
    """A path as an SBPL string literal."""
    return '"' + path.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _paths(kind: str, paths: list[str]) -> str:
    return " ".join(f"({kind} {quote(p)})" for p in paths)


def profile(
    write_roots: list[str],
    protected: list[str],
    deny_read: list[str],
    proxy_port: int | None,
    pinned: Sequence[str] = (),
) -> str:
    """Deny by default; read everything but `deny_read`; write only under `write_roots`, never `protected`.

    `pinned` folders stay writable inside but cannot be renamed or removed (git's chain to its config).

    Later rules win in SBPL, so the denials come after the allowances they carve from.
    """
    lines = [
        "(version 1)",
        "(deny default)",
        "(allow process-exec process-fork)",
        "(allow signal (target same-sandbox))",
        "(allow process-info* (target same-sandbox))",
        "(allow sysctl-read mach-lookup ipc-posix-shm ipc-posix-sem pseudo-tty file-ioctl)",
        "(allow file-read*)",
    ]
    if deny_read:
        lines.append(f"(deny file-read* {_paths('subpath', deny_read)})")
    lines.append(f"(allow file-write* {_paths('subpath', write_roots)} {_paths('literal', list(DEV_WRITABLE))})")
    if protected:
        lines.append(f"(deny file-write* {_paths('subpath', protected)})")
    if pinned:
        lines.append(f"(deny file-write-unlink {_paths('literal', list(pinned))})")
    if proxy_port is not None:
        lines.append(f'(allow network-outbound (remote ip "localhost:{proxy_port}"))')
    lines.append(";; no other network: outbound connections, binds and unix sockets stay denied")
    return "\n".join(lines) + "\n"


def command(profile_text: str, argv: list[str]) -> list[str]:
    """`argv` run under the profile."""
    return [SANDBOX_EXEC, "-p", profile_text, *argv]
