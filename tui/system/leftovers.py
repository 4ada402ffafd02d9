"""What a dead agent-tui leaves behind, and its removal: the processes it started, its temp files and folders.

A `kill -9` cannot be caught, so each run marks what it makes with its owner mark `<pid>.<start>`
(the start in clock ticks after boot tells a pid apart from a later process that reuses it): temp
names hold `-o<mark>-`, and every child's AGENT_TUI_TRACK tag begins with `<mark>-`, which its
descendants inherit. Two things act on the marks:

- the guard, `python -I -S leftovers.py --guard MARK FOLDER`: a process agent-tui starts with its
  first child, reading a pipe that only agent-tui holds. When the pipe ends (agent-tui is gone,
  however it died) it ends every process carrying the owner's tag and removes the owner's temp
  files and folders in FOLDER;
- `clean_dead_owners(FOLDER)` at the next start, for runs whose guard died with them.

Only the standard library, and nothing of `tui`: the guard runs this file alone.
"""

from __future__ import annotations

import os
import re
import signal
import stat
import sys
import time

TRACK_ENV = "AGENT_TUI_TRACK"
TEMP_PREFIX = "agent-tui-"
_MARK_IN_NAME = re.compile(r"-o(\d+)\.(\d+)-")
TERM_GRACE_S = 1.0
KILL_ROUNDS = 10


def process_start(pid: int) -> int | None:
    """When `pid` started, in clock ticks after boot; None when it is gone (or there is no /proc)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return int(f.read().rsplit(b")", 1)[1].split()[19])
    except (OSError, IndexError, ValueError):
        return None


_own_mark: tuple[int, str] | None = None


def owner_mark(pid: int | None = None) -> str:
    """`<pid>.<start>` of this process (or of `pid`); the start is 0 where there is no /proc."""
    global _own_mark
    if pid is None:
        if _own_mark is None or _own_mark[0] != os.getpid():
            _own_mark = (os.getpid(), owner_mark(os.getpid()))
        return _own_mark[1]
    return f"{pid}.{process_start(pid) or 0}"


def owner_alive(mark: str) -> bool:
    """Whether the process of `mark` still runs (a start of 0: any process with the pid counts, to be safe)."""
    pid_text, _, start_text = mark.partition(".")
    pid, start = int(pid_text), int(start_text or 0)
    if start:
        return process_start(pid) == start
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def owned_names(folder: str, mark: str | None = None) -> dict[str, list[str]]:
    """{owner mark: names} of the marked agent-tui entries in `folder` (only `mark`'s when given)."""
    found: dict[str, list[str]] = {}
    try:
        names = os.listdir(folder)
    except OSError:
        return found
    for name in names:
        if name.startswith(TEMP_PREFIX) and (match := _MARK_IN_NAME.search(name)):
            owner = f"{match.group(1)}.{match.group(2)}"
            if mark is None or owner == mark:
                found.setdefault(owner, []).append(name)
    return found


def remove_names(folder: str, names: list[str]) -> list[str]:
    """Remove our own files and folders among `names` (never a link, never another user's); the names removed."""
    import shutil

    removed = []
    for name in names:
        path = os.path.join(folder, name)
        try:
            info = os.lstat(path)
            if info.st_uid != os.getuid():
                continue
            if stat.S_ISDIR(info.st_mode):
                shutil.rmtree(path)
            elif stat.S_ISREG(info.st_mode):
                os.unlink(path)
            else:
                continue
        except OSError:
            continue
        removed.append(name)
    return removed


def tagged(mark: str) -> list[int]:
    """Pids of live processes whose AGENT_TUI_TRACK tag says the owner of `mark` started them."""
    prefix = f"\0{TRACK_ENV}={mark}-".encode()
    me = os.getpid()
    found: list[int] = []
    try:
        names = os.listdir("/proc")
    except OSError:
        return found
    for name in names:
        if not name.isdigit() or int(name) == me:
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as f:
                env = b"\0" + f.read()
            with open(f"/proc/{name}/stat", "rb") as f:
                if f.read().rsplit(b")", 1)[1].split()[0] == b"Z":
                    continue
        except (OSError, IndexError):
            continue
        if prefix in env:
            found.append(int(name))
    return found


def end_processes(mark: str, grace: float = TERM_GRACE_S) -> int:
    """SIGTERM every process of `mark`, SIGKILL what is left after `grace` seconds; how many there were."""
    first = tagged(mark)
    _send(first, signal.SIGTERM)
    deadline = time.monotonic() + grace
    left = first
    while left and time.monotonic() < deadline:
        time.sleep(0.05)
        left = tagged(mark)
    for _ in range(KILL_ROUNDS):  # a tree that forks while dying needs more than one round
        if not left:
            break
        _send(left, signal.SIGKILL)
        time.sleep(0.02)
        left = tagged(mark)
    return len(first)


def _send(pids: list[int], signum: int) -> None:
    for pid in pids:
        try:
            os.kill(pid, signum)
        except OSError:
            pass


def clean_owner(mark: str, folder: str) -> list[str]:
    """End the processes of the (dead) owner `mark` and remove its entries in `folder`; the names removed."""
    end_processes(mark)
    return remove_names(folder, owned_names(folder, mark).get(mark, []))


def clean_dead_owners(folder: str) -> list[str]:
    """At start: what runs that are gone left in `folder` (and the processes they tagged), removed."""
    removed: list[str] = []
    for mark, names in owned_names(folder).items():
        if not owner_alive(mark):
            end_processes(mark)
            removed += remove_names(folder, names)
    return removed


def guard(mark: str, folder: str) -> None:
    """Wait for agent-tui's end (stdin reaches its end), then clean up after it."""
    for signum in (signal.SIGINT, signal.SIGHUP, signal.SIGPIPE, signal.SIGTSTP):
        signal.signal(signum, signal.SIG_IGN)  # the terminal's signals are agent-tui's to handle
    while True:
        try:
            if not os.read(0, 4096):
                break
        except InterruptedError:
            continue
        except OSError:
            break
    clean_owner(mark, folder)


if __name__ == "__main__" and sys.argv[1:2] == ["--guard"]:
    guard(sys.argv[2], sys.argv[3])
