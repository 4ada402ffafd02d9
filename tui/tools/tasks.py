"""Background tasks: long commands (and any worker, e.g. a background subagent) that run on after their tool call.

A task has an id, an output file it writes to (capped, keeping its newest part:
`tui.tools.task_output`) and a status. Processes are spawned through the process tracker
(`tui.tools.processes`), so every exit path that ends agent-tui ends their whole trees too;
workers are plain threads given a stop event.

    registry = TaskRegistry()
    task = registry.start_process("npm run dev", cwd=project, description="dev server")
    registry.read_new(task.id)            # output since the last read
    registry.wait(task.id, timeout=5)     # True once it has ended
    registry.stop(task.id)                # ends the whole process group
    registry.take_finished()              # ended tasks not yet announced to the model
"""

from __future__ import annotations

import os
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from tui.system.private_files import open_private
from tui.tools.cancel_signal import CancelSignal
from tui.tools.processes import TrackedProcess, tracker
from tui.tools.task_output import DEFAULT_LIMIT_MB, MB, CappedOutput, size_text

TaskStatus = Literal["running", "completed", "failed", "killed"]
#: most characters one read returns; the rest stays in the file for the next read
MAX_READ_CHARS = 30_000
#: how often a running process task's `check` runs (a sandboxed one: protected paths swept while it runs)
CHECK_SECONDS = 1.0
#: what a process task runs while it runs (None) and once at its end (the exit code), given its output file:
#: phrases for its summary
Check = Callable[[int | None, str], list[str]]
#: after a command has exited, how long its last output (or a child's) may take to reach the file
OUTPUT_DRAIN_S = 0.2
_NO_LOCK = nullcontext()  # a worker's output file is only ever appended to


@dataclass
class BackgroundTask:
    """One background task as the model, the footer and `/tasks` see it."""

    id: str
    kind: str  # "bash", "agent", ...
    description: str
    output_path: str
    status: TaskStatus = "running"
    exit_code: int | None = None
    started: float = field(default_factory=time.time)
    ended: float | None = None
    error: str = ""
    #: what a worker returned (a background agent's final text); sent with the task's notification
    result: str = ""
    #: what the sandbox blocked while it ran, one phrase each (told with its summary)
    blocked: list[str] = field(default_factory=list)
    announced: bool = False
    read_offset: int = 0
    process: TrackedProcess | None = field(default=None, repr=False)
    #: a command's capped output file (None for a worker, which writes its own)
    output: CappedOutput | None = field(default=None, repr=False)
    stop_event: threading.Event = field(default_factory=CancelSignal, repr=False)
    done: threading.Event = field(default_factory=threading.Event, repr=False)

    @property
    def running(self) -> bool:
        return self.status == "running"

    def summary(self) -> str:
        """One line: what it is and how it ended, e.g. `Background command "make" completed (exit code 0)`."""
        what = "command" if self.kind == "bash" else self.kind
        text = f'Background {what} "{self.description}" {self.status}'
        if self.exit_code is not None:
            text += f" (exit code {self.exit_code})"
        if self.error:
            text += f": {self.error}"
        if self.blocked:
            text += f"; the sandbox blocked {'; '.join(self.blocked)}"
        return text


class TaskHandle:
    """What a worker task gets: a place to write output and the stop request to honour."""

    def __init__(self, task: BackgroundTask) -> None:
        self.task = task
        self.stop_event = task.stop_event

    def write(self, text: str) -> None:
        """Append `text` to the task's output file."""
        # 0600 (tightened if it was wider); its folder is the system temp folder, left as it is
        with open_private(self.task.output_path, "a", folder=False, encoding="utf-8", errors="replace") as f:
            f.write(text)


class TaskRegistry:
    """The background tasks of one session; thread-safe. `on_change` hears every start and end."""

    def __init__(self, on_change: Callable[[BackgroundTask], None] | None = None) -> None:
        self._lock = threading.RLock()
        self._tasks: dict[str, BackgroundTask] = {}
        self.listeners: list[Callable[[BackgroundTask], None]] = [on_change] if on_change else []
        #: a command's output file keeps its newest part past this many bytes (0: no cap)
        self.output_limit = DEFAULT_LIMIT_MB * MB

    # --- starting ------------------------------------------------------------------------

    def _new(self, kind: str, description: str) -> BackgroundTask:
        task_id = kind[0] + os.urandom(4).hex()  # not `secrets`: its imports cost ~5 ms of -p start-up
        path = tracker().temp_file(f"agent-tui-task-{task_id}-")
        task = BackgroundTask(id=task_id, kind=kind, description=description, output_path=path)
        with self._lock:
            self._tasks[task_id] = task
        return task

    def start_process(
        self,
        command: str,
        *,
        cwd: Path,
        env: dict[str, str] | None = None,
        description: str = "",
        spawn: dict[str, Any] | None = None,
        check: Check | None = None,
        argv_prefix: Sequence[str] = (),
    ) -> BackgroundTask:
        """Run `command` with bash in its own tracked session, stdout and stderr to the output file.

        `spawn` adds to the tracker's spawn arguments (the sandbox's `popen` or `preexec_fn`), `argv_prefix` goes
        before bash (macOS: `sandbox-exec -p PROFILE`); `check` runs every CHECK_SECONDS while the process runs
        and once when it has ended. OSError when bash cannot start (the task is then forgotten).
        """
        task = self._new("bash", description or command)
        env = dict(os.environ if env is None else env, PAGER="cat", GIT_PAGER="cat", GIT_TERMINAL_PROMPT="0")
        task.output = CappedOutput(task.output_path, self.output_limit)
        try:
            with task.output.pipe() as out:
                task.process = tracker().spawn(
                    [*argv_prefix, "/bin/bash", "-c", command],
                    cwd=cwd,
                    env=env,
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    **(spawn or {}),
                )
        except (OSError, subprocess.SubprocessError):
            self._drop(task)
            raise
        self._changed(task)
        threading.Thread(target=self._watch_process, args=(task, check), name=f"task-{task.id}", daemon=True).start()
        return task

    def start_worker(self, kind: str, description: str, work: Callable[[TaskHandle], str | None]) -> BackgroundTask:
        """Run `work(handle)` on a thread; it writes output through the handle and should honour its stop event.

        What it returns becomes the task's `result`; a worker that raises ends as `failed` with the exception
        as its error.
        """
        task = self._new(kind, description)
        self._changed(task)
        threading.Thread(target=self._run_worker, args=(task, work), name=f"task-{task.id}", daemon=True).start()
        return task

    def _watch_process(self, task: BackgroundTask, check: Check | None = None) -> None:
        assert task.process is not None
        code = self._wait_checking(task, check)
        if task.output is not None:
            task.output.finished.wait(OUTPUT_DRAIN_S)  # its last lines reach the file before it counts as ended
        if check is not None:
            task.blocked += [
                b for b in _checked(check, code if code >= 0 else 128 - code, task.output_path) if b not in task.blocked
            ]
        if not task.stop_event.is_set():
            tracker().release(task.process)  # children it left behind stay tracked until exit
        self._end(
            task,
            "killed" if task.stop_event.is_set() else "completed" if code == 0 else "failed",
            code if code >= 0 else 128 - code,
        )

    @staticmethod
    def _wait_checking(task: BackgroundTask, check: Check | None) -> int:
        """Wait for the task's process, running `check` every CHECK_SECONDS meanwhile."""
        assert task.process is not None
        while True:
            try:
                return task.process.popen.wait(CHECK_SECONDS if check is not None else None)
            except subprocess.TimeoutExpired:
                assert check is not None
                task.blocked += [b for b in _checked(check, None, task.output_path) if b not in task.blocked]

    def _run_worker(self, task: BackgroundTask, work: Callable[[TaskHandle], str | None]) -> None:
        try:
            task.result = work(TaskHandle(task)) or ""
        except Exception as exc:
            task.error = f"{type(exc).__name__}: {exc}"
            self._end(task, "failed", None)
            return
        self._end(task, "killed" if task.stop_event.is_set() else "completed", None)

    def _end(self, task: BackgroundTask, status: TaskStatus, exit_code: int | None) -> None:
        with self._lock:
            if task.status != "running":
                return
            task.status, task.exit_code, task.ended = status, exit_code, time.time()
        task.done.set()
        self._changed(task)

    def _changed(self, task: BackgroundTask) -> None:
        for listener in list(self.listeners):
            try:
                listener(task)
            except Exception:  # a listener's bug must not stop a task's bookkeeping
                pass

    def _drop(self, task: BackgroundTask) -> None:
        with self._lock:
            self._tasks.pop(task.id, None)
        tracker().remove_temp(task.output_path)

    # --- reading -------------------------------------------------------------------------

    def get(self, task_id: str) -> BackgroundTask | None:
        with self._lock:
            return self._tasks.get(task_id)

    def all(self) -> list[BackgroundTask]:
        """Every task of the session, oldest first."""
        with self._lock:
            return list(self._tasks.values())

    def running(self) -> list[BackgroundTask]:
        return [t for t in self.all() if t.running]

    def read_new(self, task_id: str, limit: int = MAX_READ_CHARS) -> str:
        """The output written since the last read (at most `limit` bytes; the rest waits for the next read).

        When the cap dropped output the reader had not seen, the text starts with a line saying how much.
        """
        task = self._require(task_id)
        with task.output.lock if task.output is not None else _NO_LOCK:
            dropped = task.output.dropped if task.output is not None else 0
            missed = max(0, dropped - task.read_offset)
            position = max(task.read_offset, dropped) - dropped  # read_offset counts every byte ever written
            try:
                with open(task.output_path, "rb") as f:
                    f.seek(position)
                    data = f.read(limit)
            except OSError:
                return ""
            data = data[: _complete_utf8(data)]  # a character split across reads waits for the next one
            task.read_offset = dropped + position + len(data)
        text = data.decode("utf-8", errors="replace")
        if missed:
            assert task.output is not None
            text = f"[{size_text(missed)} of output not read before the cap dropped it. {task.output.note()}]\n{text}"
        return text

    def tail(self, task_id: str, lines: int = 20) -> str:
        """The last `lines` lines of the output (for `/tasks`), without moving the read position."""
        task = self._require(task_id)
        with task.output.lock if task.output is not None else _NO_LOCK:
            try:
                with open(task.output_path, "rb") as f:
                    f.seek(max(0, os.fstat(f.fileno()).st_size - 16384))
                    data = f.read()
            except OSError:
                return ""
        return "\n".join(data.decode("utf-8", errors="replace").splitlines()[-lines:])

    def output_note(self, task_id: str) -> str:
        """One sentence when the task's output passed its cap and the oldest part was dropped, else ''."""
        task = self._require(task_id)
        return task.output.note() if task.output is not None else ""

    def wait(self, task_id: str, timeout: float, cancel: threading.Event | None = None) -> bool:
        """Wait up to `timeout` seconds for the task to end (sooner when `cancel` is set); True if it has."""
        task = self._require(task_id)
        deadline = time.monotonic() + timeout
        while not task.done.wait(min(0.05, max(0.0, deadline - time.monotonic()))):
            if time.monotonic() >= deadline or (cancel is not None and cancel.is_set()):
                return False
        return True

    def take_finished(self) -> list[BackgroundTask]:
        """Tasks that ended and were not announced yet; marks them announced."""
        with self._lock:
            ended = [t for t in self._tasks.values() if not t.running and not t.announced]
            for t in ended:
                t.announced = True
        return ended

    def _require(self, task_id: str) -> BackgroundTask:
        task = self.get(task_id)
        if task is None:
            raise KeyError(task_id)
        return task

    # --- stopping ------------------------------------------------------------------------

    def stop(self, task_id: str) -> bool:
        """End the task (a process: its whole tree); False when it had already ended."""
        task = self._require(task_id)
        if not task.running:
            return False
        task.stop_event.set()
        task.announced = True  # the one who stopped it knows; no reminder needed
        if task.process is not None:
            tracker().kill(task.process)
        else:
            task.done.wait(5)
        if task.running:
            self._end(task, "killed", None)
        return True

    def stop_all(self) -> int:
        """Stop every running task; returns how many were running."""
        running = self.running()
        for task in running:
            self.stop(task.id)
        return len(running)


def _checked(check: Check, exit_code: int | None, output_path: str) -> list[str]:
    try:
        return check(exit_code, output_path)
    except Exception as exc:  # noqa: BLE001 - a failed check is told, never a dead watcher thread
        return [f"(a check after the command failed: {type(exc).__name__}: {exc})"]


def _complete_utf8(data: bytes) -> int:
    """Length of `data` without a UTF-8 character cut at its end."""
    for back in range(1, min(4, len(data)) + 1):
        byte = data[-back]
        if byte & 0xC0 == 0x80:
            continue  # a continuation byte: look further back for the lead
        if byte & 0x80 == 0:
            return len(data)
        need = 2 if byte & 0xE0 == 0xC0 else 3 if byte & 0xF0 == 0xE0 else 4
        return len(data) if back >= need else len(data) - back
    return len(data)
