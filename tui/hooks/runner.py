"""Runs the command hooks of one event: each under `sh -c` as a tracked process group, all in parallel.

A hook gets the event's JSON on stdin, `CLAUDE_PROJECT_DIR` and `AGENT_TUI_PROJECT_DIR` in its
environment and the project folder as its cwd. An `async` (or `asyncRewake`) hook, and one whose first
line of output is `{"async": true}`, goes on in the background: the event does not wait for it and
its decisions count for nothing; `on_background` hears when it ends, and `close` stops those left. Its output is read (`tui.tools.captured`) until it
exits, without a size limit on the pipe but only the first `KEEP_BYTES` of each stream are kept,
so a hook that prints 10 MB neither blocks nor fills memory. Past its timeout, and whenever it
leaves a child behind, the whole tree is killed.
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tui.hooks.config import HookConfig, HookSpec
from tui.tools.captured import KEEP_BYTES, run_captured

#: after a hook's stderr that went past KEEP_BYTES (it reaches the model or the user as the hook's message)
CUT_NOTE = f"\n[… the rest of this hook's stderr was cut: only its first {KEEP_BYTES // 1024} KB are kept]"


@dataclass
class HookRun:
    """One handler's run: what it was given and what it did."""

    hook_id: str
    spec: HookSpec
    event: str
    stdin: str
    tool_use_id: str | None = None
    #: the value the matcher ran against (the tool name, the SessionStart source …)
    value: str | None = None
    stdout: str = ""
    stderr: str = ""
    exit_code: int | None = None
    signal_name: str | None = None
    timed_out: bool = False
    start_error: str | None = None
    #: a callback hook (the Agent SDK's) that failed: why, in a few words
    error: str | None = None
    #: the stream went past KEEP_BYTES: only its head was kept (and the text says so)
    stdout_cut: bool = False
    stderr_cut: bool = False
    duration_ms: int = 0
    #: it runs in the background (`async`, `asyncRewake`, or its first line said `{"async": true}`)
    detached: bool = False
    #: its thread is through (whatever the outcome)
    done: bool = False
    #: stops this run alone (the turn's cancel reaches it until it is detached)
    stop: threading.Event = field(default_factory=threading.Event, repr=False)

    @property
    def truncated(self) -> bool:
        """Whether either stream was cut."""
        return self.stdout_cut or self.stderr_cut

    @property
    def hook_name(self) -> str:
        """Claude Code's name for it: `PreToolUse:Bash`, `SessionStart:startup`, `Stop`."""
        return f"{self.event}:{self.value}" if self.value else self.event

    def failure(self) -> str | None:
        """One sentence when the hook did not run to a normal exit, naming the command and its file."""
        where = f"{self.event} hook `{_short(self.spec.command)}` (from {self.spec.origin})"
        if self.start_error:
            return f"{where} could not start: {self.start_error}."
        if self.error:
            return f"{where} failed: {self.error}."
        if self.timed_out:
            return f"{where} ran past its {self.spec.timeout:g} s timeout and was stopped."
        if self.signal_name:
            return f"{where} was killed by {self.signal_name}."
        return None


def _short(command: str, limit: int = 60) -> str:
    line = command.strip().splitlines()[0] if command.strip() else command
    return line if len(line) <= limit else line[: limit - 1] + "…"


class HookRunner:
    """Runs the hooks of `config` for one session; `on_start`/`on_finish` see every run."""

    def __init__(
        self,
        config: HookConfig,
        project_dir: Path,
        base_input: Callable[[], dict[str, Any]],
        on_start: Callable[[HookRun], None] | None = None,
        on_finish: Callable[[HookRun], None] | None = None,
        on_background: Callable[[HookRun], None] | None = None,
    ) -> None:
        self.config = config
        self.on_background = on_background
        self._lock = threading.Condition()
        self._background: dict[str, HookRun] = {}
        self._closed = False
        self.project_dir = Path(project_dir)
        self.base_input = base_input
        self.on_start = on_start
        self.on_finish = on_finish
        self._env: dict[str, str] | None = None

    def env(self) -> dict[str, str]:
        if self._env is None:
            env = dict(os.environ)
            env["CLAUDE_PROJECT_DIR"] = str(self.project_dir)
            env["AGENT_TUI_PROJECT_DIR"] = str(self.project_dir)
            self._env = env
        return self._env

    def run(
        self,
        event: str,
        value: str | None,
        fields: dict[str, Any],
        *,
        tool_use_id: str | None = None,
        cancel: threading.Event | None = None,
    ) -> list[HookRun]:
        """Run every hook of `event` matching `value` (and its `if`) with the common input plus `fields`.

        Waits for each, except those that run in the background; returns the runs waited for.
        """
        specs = self.config.for_event(event, value, fields.get("tool_input"), self.project_dir)
        if not specs:
            return []
        payload = {**self.base_input(), "hook_event_name": event, **fields}
        stdin = json.dumps(payload, ensure_ascii=False)
        runs = [HookRun(str(uuid.uuid4()), spec, event, stdin, tool_use_id, value) for spec in specs]
        for run in runs:
            if run.spec.once:
                self.config.ran_once(run.spec)
            if run.spec.background:
                self._start_background(run)
        runs = [r for r in runs if not r.spec.background]
        if not runs:
            return []
        if len(runs) == 1 and runs[0].spec.callback is not None:
            self._run_one(runs[0], cancel)
            return runs
        settled = threading.Condition()
        for run in runs:
            threading.Thread(target=self._run_settling, args=(run, settled), name="hook", daemon=True).start()
        with settled:
            while not all(r.detached or r.done for r in runs):
                if cancel is not None and cancel.is_set():
                    for r in runs:
                        if not r.detached:
                            r.stop.set()
                settled.wait(0.05 if cancel is not None else None)
        return [r for r in runs if not r.detached]

    def _run_settling(self, run: HookRun, settled: threading.Condition) -> None:
        def first_line(head: bytes) -> None:
            if run.detached or b"\n" not in head:
                return
            line = head.split(b"\n", 1)[0].strip()
            try:
                said = json.loads(line) if line.startswith(b"{") else None
            except ValueError:
                said = None
            if isinstance(said, dict) and said.get("async") is True:
                with settled:
                    run.detached = True
                    self._remember(run)
                    settled.notify_all()

        try:
            self._run_one(run, run.stop, first_line)
        finally:
            with settled:
                run.done = True
                settled.notify_all()
            if run.detached:
                self._forget(run)

    def _start_background(self, run: HookRun) -> None:
        run.detached = True
        self._remember(run)

        def go() -> None:
            try:
                self._run_one(run, run.stop)
            finally:
                self._forget(run)

        threading.Thread(target=go, name="hook-async", daemon=True).start()

    def _remember(self, run: HookRun) -> None:
        with self._lock:
            self._background[run.hook_id] = run
            if self._closed:
                run.stop.set()

    def _forget(self, run: HookRun) -> None:
        with self._lock:
            self._background.pop(run.hook_id, None)
            self._lock.notify_all()
        if self.on_background is not None and not self._closed:
            self.on_background(run)

    def pending(self) -> list[HookRun]:
        """The hooks still running in the background."""
        with self._lock:
            return list(self._background.values())

    def wait_background(self, which: Callable[[HookRun], bool], timeout: float | None = None) -> None:
        """Wait until no background run that `which` picks is left (or `timeout` passes)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            while any(which(r) for r in self._background.values()):
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return
                self._lock.wait(left)

    def close(self, timeout: float = 5.0) -> None:
        """Stop every background hook (its whole process tree) and wait for them to end: the session ends."""
        with self._lock:
            self._closed = True
            for run in self._background.values():
                run.stop.set()
        self.wait_background(lambda r: True, timeout)

    def _run_one(
        self, run: HookRun, cancel: threading.Event | None, on_stdout: Callable[[bytes], None] | None = None
    ) -> None:
        if self.on_start is not None:
            self.on_start(run)
        started = time.monotonic()
        try:
            if run.spec.callback is not None:  # the Agent SDK's Python callback: its JSON reads as a command's stdout
                if self.config.invoke is None:
                    raise RuntimeError("no Agent SDK is connected to run it")
                self.config.invoke(run, cancel)
            else:
                execute(run, self.project_dir, self.env(), cancel, on_stdout)
                if run.detached:
                    run.stdout = without_async_line(run.stdout)
        except Exception as exc:  # a hook must never take the loop down
            run.start_error = f"{type(exc).__name__}: {exc}"
        run.duration_ms = int((time.monotonic() - started) * 1000)
        if self.on_finish is not None:
            self.on_finish(run)


def _placed(text: str, places: dict[str, str]) -> str:
    for name, value in places.items():
        if value:
            text = text.replace(name, value)
    return text


def without_async_line(stdout: str) -> str:
    """A background hook's output without its first line when that line was `{"async": true}`."""
    first, _, rest = stdout.partition("\n")
    try:
        said = json.loads(first) if first.strip().startswith("{") else None
    except ValueError:
        return stdout
    return rest if isinstance(said, dict) and said.get("async") is True else stdout


def execute(
    run: HookRun,
    cwd: Path,
    env: dict[str, str],
    cancel: threading.Event | None = None,
    on_stdout: Callable[[bytes], None] | None = None,
) -> None:
    """Start the hook, feed it stdin, read its output until it exits or its timeout passes; end its whole tree."""
    if run.spec.plugin_root:  # a plugin's hook finds its own files through it (as Claude Code)
        env = {**env, "CLAUDE_PLUGIN_ROOT": run.spec.plugin_root}
    argv = ["/bin/sh", "-c", run.spec.command]
    if run.spec.args is not None:  # exec form: no shell; the placeholders are replaced in each argument
        places = {"${CLAUDE_PLUGIN_ROOT}": run.spec.plugin_root, "${CLAUDE_PROJECT_DIR}": str(cwd)}
        argv = [_placed(a, places) for a in (run.spec.command, *run.spec.args)]
    try:
        done = run_captured(
            argv,
            cwd=cwd,
            env=env,
            stdin=run.stdin.encode(),
            timeout=run.spec.timeout,
            keep_bytes=KEEP_BYTES,
            cancel=cancel,
            on_stdout=on_stdout,
        )
    except OSError as exc:
        run.start_error = exc.strerror or str(exc)
        return
    run.timed_out, run.stdout_cut, run.stderr_cut = done.timed_out, done.stdout_cut, done.stderr_cut
    code = done.exit_code if done.exit_code is not None else -signal.SIGKILL
    if code < 0:
        try:
            run.signal_name = signal.Signals(-code).name
        except ValueError:
            run.signal_name = f"signal {-code}"
    if not run.timed_out:
        run.exit_code = code
    run.stdout = done.stdout.decode("utf-8", "replace")
    run.stderr = done.stderr.decode("utf-8", "replace") + (CUT_NOTE if run.stderr_cut else "")
