"""Child processes of tool calls: each in its own session, tracked to the last descendant, killed as a tree.

A command may leave its process group (`setsid`, a double fork, `nohup … & disown`), so a
group kill alone lets it outlive agent-tui. Each spawned command carries a tag in its
environment (`AGENT_TUI_TRACK`); its tree is found by a `/proc` sweep that matches the tag,
the session and group of the command, the parent chain, and every pid seen earlier. With
`become_subreaper()` orphans reparent to agent-tui instead of init, so the parent chain
holds and their zombies are reaped here. (cgroup v2 would be exact, but a writable
delegated cgroup is rare: on this kind of host the cgroup tree is v1 and read-only.)

Policy: a command's background children may keep running while agent-tui runs (a dev
server started with `&`, as in Claude Code); a timeout or an interrupt kills the whole
tree of that call, and `cleanup()` at exit kills every tree and removes the temp files.
A `kill -9` skips `cleanup()`: then each direct child's parent-death signal and the guard
(`tui.tools.parent_death`, `tui.system.leftovers`) end the trees and remove the temp files.
"""

from __future__ import annotations

import itertools
import os
import signal
import subprocess
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tui.system.leftovers import TRACK_ENV, owner_mark
from tui.tools import parent_death
from tui.tools.parent_death import death_signal_preexec, ensure_guard, on_spawn_thread, with_death_signal

TERM_GRACE_SECONDS = 1.0
KILL_ROUNDS = 10
POLL_SECONDS = 0.02
PR_SET_CHILD_SUBREAPER = 36


@dataclass(frozen=True)
class ProcInfo:
    """One line of /proc/<pid>/stat, the fields a sweep needs."""

    pid: int
    ppid: int
    pgid: int
    sid: int
    state: str
    start: int  # clock ticks after boot: tells a pid apart from a later process that reuses it


def read_stat(pid: int) -> ProcInfo | None:
    """The stat of `pid`, or None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
    except OSError:
        return None
    fields = data.rsplit(b")", 1)[1].split()  # the command name may hold spaces and parentheses
    return ProcInfo(pid, int(fields[1]), int(fields[2]), int(fields[3]), fields[0].decode(), int(fields[19]))


def snapshot() -> dict[int, ProcInfo]:
    """Every process visible in /proc (none where there is no /proc: then only group kills remain)."""
    procs: dict[int, ProcInfo] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return procs
    for name in names:
        if name.isdigit():
            info = read_stat(int(name))
            if info is not None:
                procs[info.pid] = info
    return procs


def read_tag(pid: int) -> str | None:
    """The `AGENT_TUI_TRACK` value of the environment `pid` started with, if any."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            env = b"\0" + f.read()
    except OSError:
        return None
    key = b"\0" + TRACK_ENV.encode() + b"="
    start = env.find(key)
    if start < 0:
        return None
    start += len(key)
    end = env.find(b"\0", start)
    return env[start : end if end >= 0 else len(env)].decode(errors="replace")


_subreaper = False


def become_subreaper() -> bool:
    """Make orphaned descendants reparent to this process (Linux prctl); False where unsupported."""
    global _subreaper
    import ctypes  # only the console entry needs it

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        _subreaper = int(libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        _subreaper = False
    return _subreaper


def is_adopted_orphan(info: ProcInfo, leaders: Iterable[int]) -> bool:
    """As a subreaper: a process reparented to us from another session (a double fork that left its tree)."""
    me = os.getpid()
    return (
        _subreaper
        and info.ppid == me
        and info.sid != os.getsid(0)
        and info.pid not in leaders
        and info.pid != parent_death.guard_pid
    )


@dataclass
class TrackedProcess:
    """One spawned command and every descendant seen so far (pid -> start time)."""

    popen: subprocess.Popen[bytes]
    tag: str
    seen: dict[int, int] = field(default_factory=dict)
    temp_paths: tuple[str, ...] = ()  # files the command may still write (a shell's EXIT trap)
    running: list[int] = field(default_factory=list)  # live pids at the last sweep that included this tree

    @property
    def pid(self) -> int:
        return self.popen.pid


class ProcessTracker:
    """Spawns commands in their own sessions and finds, lists and kills their whole trees."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._ids = itertools.count(1)
        self._tracked: dict[str, TrackedProcess] = {}
        self._temp_paths: set[str] = set()
        self._starting = 0  # spawn() calls under way

    def spawn(
        self,
        argv: Sequence[str],
        *,
        env: dict[str, str] | None = None,
        temp_paths: Sequence[str] = (),
        popen: Any = None,
        **popen_kwargs: Any,
    ) -> TrackedProcess:
        """Start `argv` as a session leader with the tracking tag; OSError when it cannot start.

        `temp_paths` (from `temp_file`) stay registered for `cleanup()` until the command has ended;
        `popen` replaces subprocess.Popen (the sandbox starts its commands through its own).
        """
        with self._lock:
            self._starting += 1  # `release_helpers` leaves the guard and the spawn thread to this start
        try:
            return self._spawn(argv, env, temp_paths, popen, popen_kwargs)
        finally:
            with self._lock:
                self._starting -= 1

    def _spawn(
        self,
        argv: Sequence[str],
        env: dict[str, str] | None,
        temp_paths: Sequence[str],
        popen: Any,
        popen_kwargs: dict[str, Any],
    ) -> TrackedProcess:
        mark = owner_mark()
        ensure_guard(mark)
        tag = f"{mark}-{next(self._ids)}"
        env = dict(os.environ if env is None else env)
        env[TRACK_ENV] = tag
        argv = list(argv)
        if popen is None and popen_kwargs.get("preexec_fn") is not None:  # it forks anyway: set the signal there
            popen_kwargs["preexec_fn"] = death_signal_preexec(popen_kwargs["preexec_fn"])
        elif popen is None:
            argv = with_death_signal(argv, env, popen_kwargs.get("cwd"))
        # a sandboxed `popen` sets the signal in its own child
        process = on_spawn_thread(
            lambda: (popen or subprocess.Popen)(argv, env=env, start_new_session=True, **popen_kwargs)
        )
        tracked = TrackedProcess(process, tag, temp_paths=tuple(temp_paths))
        with self._lock:
            self._tracked[tag] = tracked
        return tracked

    @property
    def trees(self) -> list[TrackedProcess]:
        """The commands still tracked: running, or with descendants that still ran at the last sweep."""
        with self._lock:
            return list(self._tracked.values())

    def members(self, tracked: Iterable[TrackedProcess] | None = None) -> list[ProcInfo]:
        """The processes of the given trees (all trees by default), zombies included; remembers them.

        All trees also take in adopted orphans that no tree claims (ones that cleared their
        environment and left their session before a sweep saw them).
        """
        with self._lock:
            group = list(self._tracked.values() if tracked is None else tracked)
            leaders = {t.pid for t in self._tracked.values()}
        if not group and (tracked is not None or not _subreaper):
            return []
        procs = snapshot()
        by_tag = {t.tag: t for t in group}
        found: dict[int, TrackedProcess | None] = {}
        for info in procs.values():
            owner = self._owner(info, group, by_tag)
            if owner is not None:
                found[info.pid] = owner
            elif tracked is None and is_adopted_orphan(info, leaders):
                found[info.pid] = None
        changed = True
        while changed:  # children of members are members (double forks that cleared their environment)
            changed = False
            for info in procs.values():
                if info.pid not in found and info.ppid in found and info.pid != os.getpid():
                    found[info.pid] = found[info.ppid]
                    changed = True
        for t in group:
            t.running = []
        for pid, tree in found.items():
            if tree is not None:
                tree.seen[pid] = procs[pid].start
                if procs[pid].state != "Z":
                    tree.running.append(pid)
        return [procs[pid] for pid in found]

    @staticmethod
    def _owner(info: ProcInfo, group: list[TrackedProcess], by_tag: dict[str, TrackedProcess]) -> TrackedProcess | None:
        """The tree `info` belongs to: same session or group, seen before, or carrying the tag."""
        if info.pid in (os.getpid(), parent_death.guard_pid):
            return None
        for t in group:
            if t.pid in (info.pid, info.sid, info.pgid) or t.seen.get(info.pid) == info.start:
                return t
        if info.state == "Z":
            return None
        tag = read_tag(info.pid)
        return by_tag.get(tag) if tag else None

    def alive(self, tracked: TrackedProcess | None = None) -> list[int]:
        """Pids of the tree (or of every tree) that still run; reaps what has ended."""
        members = self.members(None if tracked is None else [tracked])
        self._reap(members)
        return [p.pid for p in members if p.state != "Z"]

    def kill(self, tracked: TrackedProcess, grace: float = TERM_GRACE_SECONDS) -> None:
        """SIGTERM the whole tree, SIGKILL what is left after `grace` seconds, reap, and forget it."""
        self._kill([tracked], grace)

    def kill_all(self, grace: float = TERM_GRACE_SECONDS) -> int:
        """Kill every tracked tree and adopted orphan; returns how many processes were still running."""
        return self._kill(None, grace)

    def signal_all(self, signum: int = signal.SIGTERM) -> None:
        """Send `signum` to every tracked process without waiting (safe in a signal handler)."""
        with self._lock:
            group = list(self._tracked.values())
        self._send(self.members(), group, signum)

    def release(self, tracked: TrackedProcess) -> list[int]:
        """After the command returned: forget its tree if empty, else keep tracking what still runs.

        The same sweep reaps the zombies of earlier calls' background children and forgets
        the trees that have ended since.
        """
        with self._lock:
            others = len(self._tracked) > 1
        self._reap(self.members(None if others else [tracked]))
        with self._lock:
            trees = list(self._tracked.values()) if others else [tracked]
        self._forget([t for t in trees if not t.running and t.popen.poll() is not None])
        return list(tracked.running)

    def forget(self, tracked: TrackedProcess) -> None:
        """Stop tracking a command known to have ended with nothing left in its group (no /proc sweep)."""
        tracked.popen.poll()
        self._forget([tracked])

    def _kill(self, only: list[TrackedProcess] | None, grace: float) -> int:
        """Kill the trees in `only` (None: everything tracked, adopted orphans included)."""
        with self._lock:
            group = list(self._tracked.values()) if only is None else only

        def running() -> list[ProcInfo]:
            members = self.members(only)
            self._reap(members)
            return [p for p in members if p.state != "Z"]

        first = running()
        self._send(first, group, signal.SIGTERM)
        deadline = time.monotonic() + grace
        left = first
        while left and time.monotonic() < deadline:
            time.sleep(POLL_SECONDS)
            left = running()
        for _ in range(KILL_ROUNDS):  # a tree that forks while dying needs more than one round
            if not left:
                break
            self._send(left, group, signal.SIGKILL)
            time.sleep(POLL_SECONDS)
            left = running()
        for t in group:
            try:
                t.popen.wait(timeout=grace + 1)
            except subprocess.TimeoutExpired:
                pass
        self._reap(self.members(only))
        self._forget(group)
        return len(first)

    @staticmethod
    def _send(members: list[ProcInfo], group: list[TrackedProcess], signum: int) -> None:
        groups = {p.pgid for p in members if p.state != "Z"}
        for t in group:
            if t.popen.returncode is None or t.pid in groups:  # never a group id the kernel may have reused
                try:
                    os.killpg(t.pid, signum)  # also reaches a member forked after the sweep
                except (ProcessLookupError, PermissionError):
                    pass
        for p in members:
            if p.state != "Z":
                try:
                    os.kill(p.pid, signum)
                except (ProcessLookupError, PermissionError):
                    pass

    def _reap(self, members: list[ProcInfo]) -> None:
        """Wait for zombies that reparented to us; leave each command's own shell to its Popen."""
        me = os.getpid()
        with self._lock:
            leaders = {t.pid: t for t in self._tracked.values()}
        for p in members:
            if p.pid in leaders:
                leaders[p.pid].popen.poll()
            elif p.state == "Z" and p.ppid == me:
                try:
                    os.waitpid(p.pid, os.WNOHANG)
                except ChildProcessError:
                    pass

    def _forget(self, group: list[TrackedProcess]) -> None:
        with self._lock:
            for t in group:
                self._tracked.pop(t.tag, None)

    def temp_file(self, prefix: str) -> str:
        """A new empty temp file that `cleanup()` removes if its owner cannot (the guard or the next start, after a kill -9)."""
        import tempfile

        mark = owner_mark()
        with self._lock:
            self._starting += 1  # `release_helpers` leaves the guard to this file
        try:
            ensure_guard(mark)
            fd, path = tempfile.mkstemp(prefix=f"{prefix}o{mark}-")
            os.close(fd)
            with self._lock:
                self._temp_paths.add(path)
        finally:
            with self._lock:
                self._starting -= 1
        return path

    def remove_temp(self, path: str) -> None:
        """Remove `path`; while a command that may write it still runs, `cleanup()` removes it again."""
        with self._lock:
            writers = [t for t in self._tracked.values() if path in t.temp_paths and t.popen.poll() is None]
            if not writers:
                self._temp_paths.discard(path)
        try:
            os.unlink(path)
        except OSError:
            pass

    def cleanup(self, grace: float = TERM_GRACE_SECONDS) -> None:
        """At exit: kill every tracked tree, remove the temp files, and end the spawn thread and the guard."""
        self.kill_all(grace)
        with self._lock:
            paths = list(self._temp_paths)
        for path in paths:
            self.remove_temp(path)
        self.release_helpers()

    def release_helpers(self) -> bool:
        """If nothing is tracked (no command, no temp file): end the spawn thread and the guard; True if so.

        A closed session calls this so that it leaves nothing behind; the next command starts them again.
        """
        with self._lock:
            if (
                self._starting
                or self._temp_paths
                or any(t.popen.poll() is None or t.running for t in self._tracked.values())
            ):
                return False
            parent_death.release()
        return True


_tracker: ProcessTracker | None = None
_tracker_lock = threading.RLock()  # re-entered when a signal handler interrupts its holder


def tracker() -> ProcessTracker:
    """The process-wide tracker that Bash (and later background tasks) spawn through."""
    global _tracker
    with _tracker_lock:
        if _tracker is None:
            _tracker = ProcessTracker()
        return _tracker
