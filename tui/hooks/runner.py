"""Runs the command hooks of one event: each under `sh -c` as a tracked process group, all in parallel.

A hook gets the event's JSON on stdin, `CLAUDE_PROJECT_DIR` and `AGENT_TUI_PROJECT_DIR` in its
environment and the project folder as its cwd. Its output is read (`tui.tools.captured`) until it
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
from dataclasses import dataclass
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
    ) -> None:
        self.config = config
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
        """Run every hook of `event` matching `value` with the common input plus `fields`; wait for all."""
        specs = self.config.for_event(event, value)
        if not specs:
            return []
        payload = {**self.base_input(), "hook_event_name": event, **fields}
        stdin = json.dumps(payload, ensure_ascii=False)
        runs = [HookRun(str(uuid.uuid4()), spec, event, stdin, tool_use_id, value) for spec in specs]
        for run in [r for r in runs if r.spec.background]:  # `async`: not waited for, decides nothing
            threading.Thread(target=self._run_one, args=(run, None), name="hook-async", daemon=True).start()
        runs = [r for r in runs if not r.spec.background]
        if not runs:
            return []
        if len(runs) == 1:
            self._run_one(runs[0], cancel)
            return runs
        threads = [threading.Thread(target=self._run_one, args=(r, cancel), name="hook", daemon=True) for r in runs]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return runs

    def _run_one(self, run: HookRun, cancel: threading.Event | None) -> None:
        if self.on_start is not None:
            self.on_start(run)
        started = time.monotonic()
        try:
            if run.spec.callback is not None:  # the Agent SDK's Python callback: its JSON reads as a command's stdout
                if self.config.invoke is None:
                    raise RuntimeError("no Agent SDK is connected to run it")
                self.config.invoke(run, cancel)
            else:
                execute(run, self.project_dir, self.env(), cancel)
        except Exception as exc:  # a hook must never take the loop down
            run.start_error = f"{type(exc).__name__}: {exc}"
        run.duration_ms = int((time.monotonic() - started) * 1000)
        if self.on_finish is not None:
            self.on_finish(run)


def execute(run: HookRun, cwd: Path, env: dict[str, str], cancel: threading.Event | None = None) -> None:
    """Start the hook, feed it stdin, read its output until it exits or its timeout passes; end its whole tree."""
    if run.spec.plugin_root:  # a plugin's hook finds its own files through it (as Claude Code)
        env = {**env, "CLAUDE_PLUGIN_ROOT": run.spec.plugin_root}
    try:
        done = run_captured(
            ["/bin/sh", "-c", run.spec.command],
            cwd=cwd,
            env=env,
            stdin=run.stdin.encode(),
            timeout=run.spec.timeout,
            keep_bytes=KEEP_BYTES,
            cancel=cancel,
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
