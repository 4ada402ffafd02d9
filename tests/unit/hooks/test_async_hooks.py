"""Background hooks: `async`, `asyncRewake` and a first line of `{"async": true}` never hold the event; they stop at close."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from tui.hooks.config import HookConfig, HookSpec
from tui.hooks.runner import HookRun, HookRunner

from .test_runner import _alive


def _spec(tmp_path: Path, command: str, event: str = "PostToolUse", **fields) -> HookSpec:
    return HookSpec(event, None, command, 10, tmp_path / "settings.json", True, **fields)


def _runner(tmp_path: Path, *specs: HookSpec, ended=None) -> HookRunner:
    return HookRunner(HookConfig(list(specs), trusted=True), tmp_path, dict, on_background=ended)


def test_a_first_line_of_async_true_sends_the_hook_to_the_background(tmp_path: Path) -> None:
    release, ended = tmp_path / "release", threading.Event()
    seen: list[HookRun] = []
    command = f"echo '{{\"async\": true}}'; while [ ! -e {release} ]; do sleep 0.02; done; echo later; exit 2"
    runner = _runner(tmp_path, _spec(tmp_path, command), ended=lambda run: (seen.append(run), ended.set()))
    assert runner.run("PostToolUse", "Bash", {}) == []  # not waited for, decides nothing
    assert [r.spec.command for r in runner.pending()] == [command]
    release.touch()
    assert ended.wait(10)
    assert (seen[0].exit_code, seen[0].stdout, seen[0].detached) == (2, "later\n", True)
    assert runner.pending() == []


def test_a_hook_whose_first_line_is_other_json_is_waited_for(tmp_path: Path) -> None:
    runs = _runner(tmp_path, _spec(tmp_path, "echo '{\"async\": false}'; sleep 0.2; echo done")).run(
        "PostToolUse", "Bash", {}
    )
    assert [(r.exit_code, r.detached) for r in runs] == [(0, False)]
    assert runs[0].stdout.endswith("done\n")


def test_async_rewake_runs_in_the_background_too(tmp_path: Path) -> None:
    ended = threading.Event()
    spec = _spec(tmp_path, "sleep 0.2; echo why >&2; exit 2", "Stop", background=True, rewake=True)
    runner = _runner(tmp_path, spec, ended=lambda run: ended.set())
    assert runner.run("Stop", None, {}) == []
    runner.wait_background(lambda r: r.spec.rewake)
    assert ended.is_set()


def test_close_stops_background_hooks_with_their_process_trees(tmp_path: Path) -> None:
    pidfile = tmp_path / "child"
    command = f"sleep 60 & echo $! > {pidfile}; wait"
    runner = _runner(tmp_path, _spec(tmp_path, command, background=True))
    runner.run("PostToolUse", "Bash", {})
    deadline = time.monotonic() + 10
    while (not pidfile.exists() or not pidfile.read_text().strip()) and time.monotonic() < deadline:
        threading.Event().wait(0.02)  # the hook has started its child
    runner.close()
    assert runner.pending() == []
    assert not _alive(int(pidfile.read_text()))


def test_a_once_hook_runs_once_per_session(tmp_path: Path) -> None:
    runner = _runner(tmp_path, _spec(tmp_path, "true", "Stop", once=True))
    assert len(runner.run("Stop", None, {})) == 1
    assert runner.run("Stop", None, {}) == []


def test_exec_form_args_run_without_a_shell_with_placeholders_per_argument(tmp_path: Path) -> None:
    spec = _spec(tmp_path, "/bin/echo", "Stop", args=("${CLAUDE_PROJECT_DIR}/x", "$HOME `id`", "a b"))
    runs = _runner(tmp_path, spec).run("Stop", None, {})
    assert runs[0].stdout == f"{tmp_path}/x $HOME `id` a b\n"


def test_on_failure_block_turns_a_failed_hook_into_a_block() -> None:
    from tui.hooks.outcome import read_outcome

    def run(event: str, code: int, stdout: str = "", block: bool = True) -> HookRun:
        spec = HookSpec(event, None, "check", 10, Path("s.json"), False, block_on_failure=block)
        return HookRun("h", spec, event, "{}", stdout=stdout, stderr="boom", exit_code=code)

    blocked = read_outcome("PreToolUse", [run("PreToolUse", 1)])
    assert blocked.permission == "deny" and "failed with exit code 1: boom (onFailure: block)" in blocked.reason
    assert read_outcome("PreToolUse", [run("PreToolUse", 0, "{bad")]).blocked
    assert not read_outcome("PreToolUse", [run("PreToolUse", 1, block=False)]).blocked
    assert not read_outcome("Stop", [run("Stop", 1)]).blocked  # ignored on Stop, as in Claude Code
    assert not read_outcome("PreToolUse", [run("PreToolUse", 0, '{"continue": true}')]).blocked


def test_instructions_loaded_fields_name_the_kind_and_reason_of_each_file(tmp_path: Path) -> None:
    from tui.config.memory import MemoryFile
    from tui.hooks.instructions import instructions_fields

    home, project = tmp_path / "home" / ".claude", tmp_path / "p"
    user = instructions_fields(MemoryFile(home / "CLAUDE.md", ""), False, [home])
    assert (user["memory_type"], user["load_reason"]) == ("User", "session_start")
    local = instructions_fields(MemoryFile(project / "CLAUDE.local.md", ""), True, [home])
    assert (local["memory_type"], local["load_reason"]) == ("Local", "compact")
    imported = instructions_fields(MemoryFile(project / "a.md", "", project / "CLAUDE.md"), False, [home])
    assert imported == {
        "file_path": str(project / "a.md"),
        "memory_type": "Project",
        "load_reason": "include",
        "parent_file_path": str(project / "CLAUDE.md"),
    }
