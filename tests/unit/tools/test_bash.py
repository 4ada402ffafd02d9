"""Bash: streaming, persistent cwd, exit codes, timeouts, truncation, killing the whole group."""

from __future__ import annotations

import os
import shutil
import signal
import threading
import time
from pathlib import Path

import pytest

from tui.tools.base import FatalToolError, ToolContext, ToolError, ToolInterrupted
from tui.tools.bash import MAX_OUTPUT_CHARS, BashTool

bash = BashTool()


def alive(pid: int) -> bool:
    """True when `pid` runs (a zombie waiting for its reaper counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def wait_gone(pids: list[int], seconds: float = 3.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not any(alive(p) for p in pids):
            return True
        time.sleep(0.02)
    return False


def test_output_streams_live_and_lands_in_result(ctx: ToolContext) -> None:
    chunks: list[tuple[str, str]] = []
    ctx.emit_output = lambda chunk, stream="stdout": chunks.append((stream, chunk))
    result = bash.run({"command": "echo out; echo err >&2", "description": "print twice"}, ctx)
    assert ("stdout", "out\n") in chunks and ("stderr", "err\n") in chunks
    assert "out" in result.text() and "err" in result.text()
    assert result.text().endswith("Exit code: 0") and not result.is_error
    assert result.meta["exit_code"] == 0


def test_nonzero_exit_is_error_with_code(ctx: ToolContext) -> None:
    result = bash.run({"command": "echo failing; exit 3"}, ctx)
    assert result.is_error and result.text() == "failing\nExit code: 3"


def test_runs_in_project_dir_and_cd_carries_over(project: Path, ctx: ToolContext) -> None:
    (project / "sub").mkdir()
    assert bash.run({"command": "pwd"}, ctx).text().splitlines()[0] == str(project)
    first = bash.run({"command": "cd sub && echo moved"}, ctx)
    assert first.text() == "moved\nExit code: 0"  # the cwd marker never shows
    assert bash.run({"command": "pwd"}, ctx).text().splitlines()[0] == str(project / "sub")
    assert ctx.state.bash_cwd == project / "sub"
    assert bash.preview({"command": "ls"}, ctx) == {"kind": "command", "command": "ls", "cwd": str(project / "sub")}


def test_cwd_that_vanished_falls_back_to_project(project: Path, ctx: ToolContext) -> None:
    (project / "gone").mkdir()
    bash.run({"command": "cd gone"}, ctx)
    shutil.rmtree(project / "gone")
    result = bash.run({"command": "pwd"}, ctx)
    assert result.text().startswith(str(project)) and "no longer exists" in result.text()


def test_cd_survives_exit_code(project: Path, ctx: ToolContext) -> None:
    (project / "d").mkdir()
    bash.run({"command": "cd d; exit 4"}, ctx)
    assert ctx.state.bash_cwd == project / "d"


def test_stdin_is_closed(ctx: ToolContext) -> None:
    started = time.monotonic()
    result = bash.run({"command": 'read -r line; echo "got:[$line]"; cat'}, ctx)
    assert "got:[]" in result.text() and time.monotonic() - started < 5


def test_output_cut_at_30000_chars_with_note(ctx: ToolContext) -> None:
    result = bash.run({"command": "printf 'START'; head -c 100000 /dev/zero | tr '\\0' 'x'; printf 'END'"}, ctx)
    text = result.text()
    assert text.startswith("START") and "END\nExit code: 0" in text
    assert "[70,008 characters cut from the middle of the output]" in text
    output = text.rsplit("\nExit code", 1)[0]
    assert output.count("x") == MAX_OUTPUT_CHARS - len("START") - len("END")


def test_non_utf8_output_is_replaced(ctx: ToolContext) -> None:
    assert "\ufffd" in bash.run({"command": "printf 'a\\xffb'"}, ctx).text()


@pytest.mark.usefixtures("sandbox_off")  # process-tree tracking outside the sandbox
def test_timeout_kills_command_and_children(tmp_path: Path, ctx: ToolContext) -> None:
    pid_file = tmp_path / "child.pid"
    started = time.monotonic()
    result = bash.run({"command": f"sleep 60 & echo $! > {pid_file}; sleep 60", "timeout": 500}, ctx)
    assert time.monotonic() - started < 5
    assert result.is_error and "timed out after 0.5 s" in result.text()
    assert wait_gone([int(pid_file.read_text())])


@pytest.mark.usefixtures("sandbox_off")  # process-tree tracking outside the sandbox
def test_interrupt_kills_shell_child_and_grandchild(tmp_path: Path, ctx: ToolContext) -> None:
    ready = threading.Event()

    def on_output(chunk: str, stream: str = "stdout") -> None:
        if "ready" in chunk:
            ready.set()

    ctx.emit_output = on_output
    pids = tmp_path / "pids"
    command = f"(sleep 300; :) & echo $! >> {pids}; echo $$ >> {pids}; echo ready; sleep 300"
    canceller = threading.Thread(target=lambda: ready.wait(10) and ctx.cancel.set())
    canceller.start()
    started = time.monotonic()
    with pytest.raises(ToolInterrupted):
        bash.run({"command": command}, ctx)
    canceller.join()
    assert time.monotonic() - started < 5
    recorded = [int(p) for p in pids.read_text().split()]
    assert len(recorded) == 2
    assert wait_gone(recorded), "no orphan may survive an interrupt"


@pytest.mark.usefixtures("sandbox_off")  # process-tree tracking outside the sandbox
def test_child_ignoring_sigterm_is_killed(tmp_path: Path, ctx: ToolContext) -> None:
    pid_file = tmp_path / "stubborn.pid"
    command = f"(trap '' TERM; sleep 60) & echo $! > {pid_file}; wait"
    result = bash.run({"command": command, "timeout": 300}, ctx)
    assert result.is_error
    assert wait_gone([int(pid_file.read_text())])


def test_background_child_does_not_hang_the_call(ctx: ToolContext) -> None:
    started = time.monotonic()
    result = bash.run({"command": "sleep 30 & echo $!"}, ctx)
    pid = int(result.text().splitlines()[0])
    try:
        assert time.monotonic() - started < 3 and not result.is_error
    finally:
        os.kill(pid, signal.SIGKILL)


def test_missing_project_dir_is_fatal(tmp_path: Path, ctx: ToolContext) -> None:
    shutil.rmtree(ctx.project_dir)
    with pytest.raises(FatalToolError, match="no longer exists"):
        bash.run({"command": "echo hi"}, ctx)


@pytest.mark.parametrize(
    "tool_input",
    [{"command": ""}, {"command": "   "}, {"command": 5}, {"command": "echo a\x00b"}, {"command": "ls", "timeout": 0}],
)
def test_hostile_inputs(ctx: ToolContext, tool_input: dict) -> None:
    with pytest.raises(ToolError):
        bash.run(tool_input, ctx)


def test_huge_timeout_is_capped_not_refused(ctx: ToolContext) -> None:
    assert bash.run({"command": "true", "timeout": 10**9}, ctx).text() == "(no output)\nExit code: 0"


def test_label_and_target(ctx: ToolContext) -> None:
    assert bash.label({"command": "npm test"}, ctx) == "Bash: npm test"
    assert bash.permission_target({"command": "rm -rf build"}, ctx) == "rm -rf build"
    assert bash.label({"command": "x" * 200}, ctx).endswith("…")
    assert not bash.is_concurrency_safe({"command": "ls"}) and bash.kind == "exec"


def test_error_line_numbers_match_the_command(ctx: ToolContext) -> None:
    result = bash.run({"command": "echo $((1/0))"}, ctx)
    assert "line 1:" in result.text() and result.text().endswith("Exit code: 1")
