"""Background tasks: Bash `run_in_background`, TaskOutput, TaskStop and the registry under them, run for real."""

from __future__ import annotations

import re
import threading
from pathlib import Path

import pytest

from tests.integration.test_exits import marked, marker, none_left
from tui.agent.loop.tool_belt import notification_blocks
from tui.tools.base import ToolContext, ToolError
from tui.tools.bash import BashTool
from tui.tools.task_tools import TaskOutputTool, TaskStopTool
from tui.tools.tasks import TaskHandle, TaskRegistry, _complete_utf8

bash, output, stop = BashTool(), TaskOutputTool(), TaskStopTool()


def test_background_bash_returns_at_once_and_taskoutput_reads_new_output(ctx: ToolContext) -> None:
    started = bash.run(
        {"command": "echo one; sleep 0.2; echo two", "run_in_background": True, "description": "two lines"}, ctx
    )
    task_id = started.meta["task_id"]
    assert f"Command running in background with ID: {task_id}" in started.text()
    assert started.meta["output_file"] in started.text() and Path(started.meta["output_file"]).is_file()
    result = output.run({"task_id": task_id, "block": True, "timeout": 30000}, ctx)
    text = result.text()
    assert "<status>completed</status>" in text and "<exit_code>0</exit_code>" in text
    assert "one\ntwo" in text and "<task_type>local_bash</task_type>" in text
    again = output.run({"task_id": task_id, "block": False}, ctx).text()
    assert "(no new output)" in again  # output since the last read only
    assert ctx.state.tasks.take_finished() == []  # the model saw the end: no reminder


def test_a_failing_background_command_is_failed_and_announced_once(ctx: ToolContext) -> None:
    task_id = bash.run({"command": "echo oops >&2; exit 3", "run_in_background": True}, ctx).meta["task_id"]
    assert ctx.state.tasks.wait(task_id, 30)
    task = ctx.state.tasks.get(task_id)
    assert task is not None and task.status == "failed" and task.exit_code == 3
    assert [t.id for t in ctx.state.tasks.take_finished()] == [task_id]
    assert ctx.state.tasks.take_finished() == []
    assert task.summary() == 'Background command "echo oops >&2; exit 3" failed (exit code 3)'
    assert "oops" in ctx.state.tasks.tail(task_id)


def test_taskstop_ends_the_whole_tree(ctx: ToolContext) -> None:
    mark = marker()
    task_id = bash.run(
        {"command": f"sleep {mark} & setsid sleep {mark} & echo up; sleep {mark}", "run_in_background": True}, ctx
    ).meta["task_id"]
    not_yet = output.run({"task_id": task_id, "block": False}, ctx).text()
    assert "<status>running</status>" in not_yet and "not_ready" in not_yet
    registry = ctx.state.tasks
    deadline_hit = not registry.wait(task_id, 0.01)
    assert deadline_hit
    while len(marked(mark)) < 3:  # poll until the three sleeps run
        threading.Event().wait(0.02)
    result = stop.run({"task_id": task_id}, ctx)
    assert result.text().startswith(f"Stopped task {task_id}")
    assert none_left(mark) == []
    assert registry.get(task_id).status == "killed"  # type: ignore[union-attr]
    assert "already ended" in stop.run({"shell_id": task_id}, ctx).text()


def test_unknown_ids_and_missing_ids_are_errors_the_model_can_act_on(ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="No background task with id 'nope'; known task ids: none"):
        output.run({"task_id": "nope"}, ctx)
    with pytest.raises(ToolError, match="task_id"):
        stop.run({}, ctx)


def test_a_worker_task_writes_output_and_honours_stop() -> None:
    registry = TaskRegistry()
    seen: list[str] = []
    registry.listeners.append(lambda t: seen.append(t.status))

    def work(handle: TaskHandle) -> None:
        handle.write("working\n")
        handle.stop_event.wait(30)

    task = registry.start_worker("agent", "explore", work)
    assert task.id.startswith("a") and task.running
    while not registry.tail(task.id):
        threading.Event().wait(0.01)
    assert registry.read_new(task.id) == "working\n"
    assert registry.stop(task.id) and task.status == "killed"
    assert seen[0] == "running" and seen[-1] == "killed"

    def boom(handle: TaskHandle) -> None:
        raise RuntimeError("no model")

    failed = registry.start_worker("agent", "broken", boom)
    assert registry.wait(failed.id, 10) and failed.status == "failed" and "no model" in failed.summary()


def test_a_workers_answer_comes_with_its_notification_and_its_output(ctx: ToolContext) -> None:
    from tui.agent.loop.tool_belt import notification_blocks

    task = ctx.state.tasks.start_worker("agent", "explore", lambda handle: "Found 3 callers.")
    assert ctx.state.tasks.wait(task.id, 10) and task.result == "Found 3 callers."
    assert "<result>Found 3 callers.</result>" in output.run({"task_id": task.id}, ctx).text()
    task.announced = False
    [note] = notification_blocks(ctx.state.tasks)
    assert note["text"].endswith("<result>Found 3 callers.</result>\n</task-notification>")
    assert 'Background agent "explore" completed' in note["text"]


def test_a_character_split_across_reads_waits_for_the_next_read(tmp_path: Path) -> None:
    euro = "€".encode()
    assert _complete_utf8(b"ab" + euro[:2]) == 2 and _complete_utf8(b"ab" + euro) == 5
    registry = TaskRegistry()
    task = registry.start_worker("agent", "bytes", lambda h: None)
    registry.wait(task.id, 10)
    Path(task.output_path).write_bytes(b"x" + euro[:1])
    assert registry.read_new(task.id) == "x"
    Path(task.output_path).write_bytes(b"x" + euro)
    assert registry.read_new(task.id) == "€"


def test_background_output_is_capped_keeping_the_newest_lines_and_says_what_was_dropped(ctx: ToolContext) -> None:
    registry = ctx.state.tasks
    registry.output_limit = 1024 * 1024
    task_id = bash.run({"command": "seq 1 2000000", "run_in_background": True}, ctx).meta["task_id"]  # 14.2 MB
    assert registry.wait(task_id, 60)
    kept = Path(registry.get(task_id).output_path).read_bytes()  # type: ignore[union-attr]
    assert len(kept) <= 1024 * 1024  # main kept all 14.2 MB
    lines = kept.decode().splitlines()
    assert lines[-1] == "2000000" and kept.startswith(lines[0].encode() + b"\n") and int(lines[0]) > 1_000_000
    [block] = notification_blocks(registry)  # the task's notification says so
    assert re.search(r"the oldest 13\.\d MB were dropped and the file keeps the newest part", block["text"])
    result = output.run({"task_id": task_id, "block": False}, ctx).text()
    assert re.search(r"\[13\.\d MB of output not read before the cap dropped it\.", result)
    assert "<output_note>The output passed its 1.0 MB cap (setting background_output_limit_mb)" in result
    assert f"the cap dropped it. {registry.output_note(task_id)}]\n{lines[0]}\n" in result  # then the oldest kept line


def test_a_flood_stays_under_the_cap_while_it_runs(ctx: ToolContext) -> None:
    registry = ctx.state.tasks
    registry.output_limit = 2 * 1024 * 1024
    task = registry.start_process("yes", cwd=ctx.project_dir, description="flood")
    try:
        while registry.output_note(task.id) == "" or task.output.dropped < 50 * 1024 * 1024:  # type: ignore[union-attr]
            threading.Event().wait(0.05)  # 50 MB written and dropped
        assert Path(task.output_path).stat().st_size <= 2 * 1024 * 1024
    finally:
        assert registry.stop(task.id)  # main: 4.5 GB in 10 s until killed
    text = registry.read_new(task.id)
    assert text.startswith("[") and "y\ny\n" in text
