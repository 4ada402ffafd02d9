"""The tool belt in a real terminal: a question, a plan approval, a background task, and no orphan after quitting."""

from __future__ import annotations

from pathlib import Path

from tests.fakeapi import FakeAPI, reply, text, tool_use
from tests.integration.test_exits import marked, marker, none_left

from .test_tool_belt import ONE_QUESTION
from .tmux_driver import Tmux, needs_tmux, tmux_app  # noqa: F401 - tmux_app is a fixture


@needs_tmux
def test_ask_approve_a_plan_start_a_task_and_quit_without_orphans(tmux_app: Tmux, demo_project: Path) -> None:
    mark = marker()
    script = [
        reply(tool_use("AskUserQuestion", {"questions": ONE_QUESTION}), stop_reason="tool_use"),
        reply(tool_use("ExitPlanMode", {"plan": "# Plan\n\n1. Start the **server**"}), stop_reason="tool_use"),
        reply(
            tool_use("Bash", {"command": f"sleep {mark}", "run_in_background": True, "description": "server"}),
            stop_reason="tool_use",
        ),
        reply(text("The server runs.")),
    ]
    with FakeAPI(script) as api:
        tmux_app.start_app(
            "--permission-mode",
            "plan",
            "--allowedTools",
            "Bash(sleep *)",
            env={"ANTHROPIC_BASE_URL": api.base_url, "ANTHROPIC_API_KEY": "sk-test"},
        )
        tmux_app.keys("start the server", "Enter")
        tmux_app.wait_for(lambda s: "[1/1] Name" in s and "3  Other (type your own answer)" in s, "the question")
        tmux_app.answer("2", lambda s: "Ready to code? Here is the plan:" in s and "Start the server" in s)
        tmux_app.answer("1", lambda s: "Ready to code?" not in s)
        screen = tmux_app.wait_for(lambda s: "The server runs." in s and "1 background task" in s, "the task")
        assert "mode acceptEdits" in screen
        assert marked(mark)
        results = [r.body["messages"][-1]["content"][0]["content"] for r in api.message_requests[1:3]]
    assert '"Name?"="b"' in results[0] and "User has approved your plan" in results[1]
    tmux_app.keys("C-c")
    tmux_app.keys("C-c")  # the second press quits
    assert none_left(mark, seconds=15) == [], "quitting the app must end its background tasks"
