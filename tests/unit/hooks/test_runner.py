"""Hook commands as real processes: input, environment, parallel runs, timeouts, floods, signals, no orphans."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

from tui.hooks.config import HookConfig, HookSpec
from tui.hooks.outcome import read_outcome
from tui.hooks.runner import KEEP_BYTES, HookRun, HookRunner


def _runner(tmp_path: Path, *commands: str, timeout: float = 10, event: str = "Stop") -> HookRunner:
    specs = [HookSpec(event, None, c, timeout, tmp_path / "settings.json", True) for c in commands]
    return HookRunner(HookConfig(specs, trusted=True), tmp_path, lambda: {"session_id": "s1", "cwd": str(tmp_path)})


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is not running
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_the_hook_gets_the_json_on_stdin_the_project_dir_in_its_env_and_as_cwd(tmp_path: Path) -> None:
    out = tmp_path / "seen.json"
    script = f'cat > {out}; printf "%s\\n%s\\n%s" "$CLAUDE_PROJECT_DIR" "$AGENT_TUI_PROJECT_DIR" "$PWD" > {out}.env'
    runs = _runner(tmp_path, script, event="PreToolUse").run(
        "PreToolUse", "Bash", {"tool_name": "Bash", "tool_input": {"command": "ls"}}
    )
    assert runs[0].exit_code == 0
    assert json.loads(out.read_text()) == {
        "session_id": "s1",
        "cwd": str(tmp_path),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
    }
    assert (tmp_path / "seen.json.env").read_text().splitlines() == [str(tmp_path)] * 3


def test_several_hooks_run_in_parallel(tmp_path: Path) -> None:
    # each waits for the other's file: run one after the other, the first would time out
    a, b = tmp_path / "a", tmp_path / "b"
    wait = "i=0; while [ ! -e {f} ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done; [ -e {f} ]"
    runs = _runner(tmp_path, f"touch {a}; {wait.format(f=b)}", f"touch {b}; {wait.format(f=a)}").run("Stop", None, {})
    assert [(r.exit_code, r.timed_out) for r in runs] == [(0, False), (0, False)]


def test_a_hook_past_its_timeout_is_killed_with_its_children(tmp_path: Path) -> None:
    pidfile = tmp_path / "child"
    runs = _runner(tmp_path, f"sleep 60 & echo $! > {pidfile}; wait", timeout=0.5).run("Stop", None, {})
    run = runs[0]
    assert run.timed_out and run.exit_code is None
    assert "ran past its 0.5 s timeout and was stopped" in (run.failure() or "")
    assert not _alive(int(pidfile.read_text()))


def test_a_background_child_left_behind_is_killed_not_orphaned(tmp_path: Path) -> None:
    pidfile = tmp_path / "child"
    runs = _runner(tmp_path, f"sleep 60 > /dev/null 2>&1 & echo $! > {pidfile}").run("Stop", None, {})
    assert runs[0].exit_code == 0 and not runs[0].timed_out
    assert not _alive(int(pidfile.read_text()))


def test_ten_megabytes_of_output_neither_hang_nor_fill_memory(tmp_path: Path) -> None:
    runs = _runner(tmp_path, "head -c 10000000 /dev/zero | tr '\\0' x").run("Stop", None, {})
    assert runs[0].exit_code == 0 and runs[0].truncated
    assert len(runs[0].stdout) == KEEP_BYTES


def test_a_missing_command_is_a_non_blocking_error_naming_the_file(tmp_path: Path) -> None:
    runs = _runner(tmp_path, "no-such-hook-command-xyz", event="PreToolUse").run("PreToolUse", "Bash", {})
    outcome = read_outcome("PreToolUse", runs)
    assert runs[0].exit_code == 127 and not outcome.blocked and outcome.permission is None
    assert len(outcome.user_messages) == 1
    assert outcome.user_messages[0].startswith(
        f"PreToolUse hook `no-such-hook-command-xyz` (from {tmp_path}/settings.json) failed with exit code 127:"
    )


def test_a_hook_killed_by_a_signal_is_named(tmp_path: Path) -> None:
    runs = _runner(tmp_path, "kill -9 $$").run("Stop", None, {})
    outcome = read_outcome("Stop", runs)
    assert runs[0].signal_name == "SIGKILL" and not outcome.blocked
    assert outcome.user_messages == [f"Stop hook `kill -9 $$` (from {tmp_path}/settings.json) was killed by SIGKILL."]


def test_a_hook_that_never_reads_stdin_gets_a_large_input_without_a_hang(tmp_path: Path) -> None:
    runs = _runner(tmp_path, "exit 0", event="PostToolUse").run(
        "PostToolUse", "Read", {"tool_response": "x" * 1_000_000}
    )
    assert runs[0].exit_code == 0


def test_an_interrupt_stops_a_running_hook(tmp_path: Path) -> None:
    cancel = threading.Event()
    threading.Timer(0.2, cancel.set).start()
    runs = _runner(tmp_path, "sleep 60").run("Stop", None, {}, cancel=cancel)
    assert runs[0].exit_code is not None and runs[0].exit_code < 0  # SIGTERM from the kill


def test_on_start_and_on_finish_see_each_run(tmp_path: Path) -> None:
    seen: list[tuple[str, HookRun]] = []
    runner = _runner(tmp_path, "echo out; echo err >&2; exit 3", event="Notification")
    runner.on_start = lambda r: seen.append(("start", r))
    runner.on_finish = lambda r: seen.append(("finish", r))
    runner.run("Notification", "permission_prompt", {})
    assert [s for s, _ in seen] == ["start", "finish"]
    run = seen[1][1]
    assert (run.stdout, run.stderr, run.exit_code) == ("out\n", "err\n", 3)
    assert run.hook_name == "Notification:permission_prompt"


def test_an_async_hook_runs_in_the_background_and_decides_nothing(tmp_path: Path) -> None:
    release = tmp_path / "release"
    spec = HookSpec(
        "Stop",
        None,
        f"while [ ! -e {release} ]; do sleep 0.02; done; exit 2",
        10,
        tmp_path / "settings.json",
        True,
        background=True,
    )
    finished = threading.Event()
    runner = HookRunner(HookConfig([spec], trusted=True), tmp_path, dict, on_finish=lambda run: finished.set())
    assert runner.run("Stop", None, {}) == []  # returned before the hook could end
    release.touch()
    assert finished.wait(10)


def test_a_setsid_child_holding_the_output_is_killed_and_the_hook_judged_by_its_own_exit(tmp_path: Path) -> None:
    pidfile = tmp_path / "child"
    runs = _runner(tmp_path, f"setsid sleep 60 & echo $! > {pidfile}; echo decided").run("Stop", None, {})
    assert (runs[0].exit_code, runs[0].timed_out, runs[0].stdout) == (0, False, "decided\n")
    assert not _alive(int(pidfile.read_text()))  # main left it running: its own session escaped the group kill
