"""Pilot tests of the tool belt in the app: background tasks, web search, questions and plan approval."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tui.agent.options import AgentOptions
from tui.agent.session import AgentSession
from tui.ui.app import AgentApp
from tui.ui.screens.tasks_screen import TasksScreen
from tui.ui.widgets.blocks import MarkerLine

from .conftest import SIZE, type_prompt, wait_until


def api_app(monkeypatch: Any, api: Any, project: Path, **options: Any) -> AgentApp:
    """The app on a real session talking to `api` (a FakeAPI), permission dialogs armed at once."""
    monkeypatch.setenv("ANTHROPIC_BASE_URL", api.base_url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    opts = AgentOptions(project_dir=project, interactive=True, transcript=False, **options)
    return AgentApp(opts, session=AgentSession(opts), permission_grace_s=0)


async def test_running_tasks_show_in_the_footer_and_tasks_stops_one(offline_options) -> None:
    app = AgentApp(offline_options(), permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        registry = app.session.state.tasks
        task = registry.start_process(
            "echo serving; exec sleep 300", cwd=app.session.options.project_dir, description="dev server"
        )
        await wait_until(pilot, lambda: "1 background task" in str(app.status.render()))
        while "serving" not in registry.tail(task.id):
            await pilot.pause(0.02)
        await type_prompt(pilot, "/tasks")
        await wait_until(pilot, lambda: isinstance(app.screen, TasksScreen))
        screen = app.screen
        await wait_until(pilot, lambda: "serving" in str(screen.query_one("#tasks-output").render()))
        assert screen.query_one("#tasks-table").row_count == 1
        await pilot.press("k")
        await wait_until(pilot, lambda: not task.running)
        assert task.status == "killed"
        await pilot.press("escape")
        await wait_until(pilot, lambda: "background task" not in str(app.status.render()))
        await wait_until(
            pilot, lambda: any(f"background task {task.id} killed" in str(m.render()) for m in app.query(MarkerLine))
        )


async def test_a_web_search_shows_its_links_and_the_pause_turn_transition(monkeypatch, demo_project) -> None:
    from tests.fakeapi import FakeAPI
    from tests.fakeapi.web_search import RESULTS, search_script
    from tui.ui.widgets.blocks import ToolCallBlock

    with FakeAPI(search_script()) as api:
        app = api_app(monkeypatch, api, demo_project)
        async with app.run_test(size=SIZE) as pilot:
            await type_prompt(pilot, "what is textual?")
            await wait_until(pilot, lambda: not app.controller.busy and app.query(ToolCallBlock))
            [search] = app.query(ToolCallBlock)
            assert search.tool.label == "web search: textual tui · 2 results" and search.tool.state == "done"
            assert not search.collapsed
            shown = str(search.query_one(".tool-result").render())
            assert all(title in shown and url in shown for title, url in RESULTS)
            markers = [str(m.render()) for m in app.query(MarkerLine)]
            assert "pause_turn → server tool paused, turn continues (1/10)" in markers
            assert "1 search" in str(app.status.render())


QUESTIONS = [
    {
        "question": "Which library?",
        "header": "Library",
        "multiSelect": False,
        "options": [{"label": "httpx", "description": "async and sync"}, {"label": "requests", "description": "sync"}],
    },
    {
        "question": "Which features?",
        "header": "Features",
        "multiSelect": True,
        "options": [
            {"label": "retries", "description": ""},
            {"label": "cache", "description": ""},
            {"label": "logging", "description": ""},
        ],
    },
]
ONE_QUESTION = [
    {
        "question": "Name?",
        "header": "Name",
        "multiSelect": False,
        "options": [{"label": "a", "description": ""}, {"label": "b", "description": ""}],
    }
]


async def test_the_model_asks_questions_and_gets_a_plan_approved(monkeypatch, demo_project) -> None:
    from tests.fakeapi import FakeAPI, reply, text, tool_use
    from tui.ui.screens.question_dialog import PlanDialog, QuestionDialog

    script = [
        reply(tool_use("AskUserQuestion", {"questions": QUESTIONS}), stop_reason="tool_use"),
        reply(tool_use("ExitPlanMode", {"plan": "# The plan\n\n- **step one**"}), stop_reason="tool_use"),
        reply(tool_use("AskUserQuestion", {"questions": ONE_QUESTION}), stop_reason="tool_use"),
        reply(tool_use("ExitPlanMode", {"plan": "# Plan 2"}), stop_reason="tool_use"),
        reply(text("Coding now.")),
    ]
    with FakeAPI(script) as api:
        app = api_app(monkeypatch, api, demo_project, permission_mode="plan")
        async with app.run_test(size=SIZE) as pilot:
            await type_prompt(pilot, "plan a client")
            await wait_until(pilot, lambda: isinstance(app.screen, QuestionDialog) and app.screen.armed)
            await pilot.press("2")  # requests
            await wait_until(pilot, lambda: app.screen.index == 1)
            await pilot.press("1", "down", "down", "space", "enter")  # retries and logging
            await wait_until(pilot, lambda: isinstance(app.screen, PlanDialog) and app.screen.armed)
            assert "step one" in app.screen.query_one("Markdown").source
            await pilot.press("3")
            await pilot.press(*"more", "enter")
            await wait_until(pilot, lambda: isinstance(app.screen, QuestionDialog) and app.screen.armed)
            await pilot.press("3", *"c 1", "enter")  # Other, with a digit and a space typed as text
            await wait_until(pilot, lambda: isinstance(app.screen, PlanDialog) and app.screen.armed)
            assert app.session.policy.mode == "plan"
            await pilot.press("1")
            await wait_until(pilot, lambda: not app.controller.busy)
            assert app.session.policy.mode == "acceptEdits" and app.status.mode == "acceptEdits"
            results = [r.body["messages"][-1]["content"][0] for r in api.message_requests[1:]]
    assert results[0]["content"] == (
        'User has answered your questions: "Which library?"="requests", '
        '"Which features?"="retries, logging". You can now continue with the '
        "user's answers in mind."
    )
    assert results[1]["is_error"] and results[1]["content"].endswith("The user said: more")
    assert '"Name?"="c 1"' in results[2]["content"]
    assert "User has approved your plan" in results[3]["content"] and "accepted automatically" in results[3]["content"]


async def test_a_skipped_question_is_an_error_and_an_interrupt_closes_the_dialog(monkeypatch, demo_project) -> None:
    from tests.fakeapi import FakeAPI, reply, tool_use
    from tui.ui.screens.question_dialog import QuestionDialog

    ask = reply(tool_use("AskUserQuestion", {"questions": ONE_QUESTION}), stop_reason="tool_use")
    with FakeAPI([ask, ask]) as api:
        app = api_app(monkeypatch, api, demo_project)
        async with app.run_test(size=SIZE) as pilot:
            await type_prompt(pilot, "ask me")
            await wait_until(pilot, lambda: isinstance(app.screen, QuestionDialog) and app.screen.armed)
            first = app.screen
            await pilot.press("escape")
            await wait_until(
                pilot, lambda: isinstance(app.screen, QuestionDialog) and app.screen is not first and app.screen.armed
            )
            app.session.cancel()  # what Esc on the main screen does
            await wait_until(pilot, lambda: not app.controller.busy and not isinstance(app.screen, QuestionDialog))
            skipped = api.message_requests[1].body["messages"][-1]["content"][0]
    assert skipped["is_error"] and "closed the questions without answering" in skipped["content"]
    assert len(api.message_requests) == 2  # the interrupted question went nowhere


async def test_tasks_says_when_the_output_cap_dropped_the_oldest_output(offline_options) -> None:
    app = AgentApp(offline_options(), permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        registry = app.session.state.tasks
        registry.output_limit = 64 * 1024
        task = registry.start_process("seq 1 100000", cwd=app.session.options.project_dir, description="counting")
        assert registry.wait(task.id, 30)
        await type_prompt(pilot, "/tasks")
        await wait_until(pilot, lambda: isinstance(app.screen, TasksScreen))
        shown = lambda: str(app.screen.query_one("#tasks-output").render())  # noqa: E731
        await wait_until(pilot, lambda: "100000" in shown())
        assert "passed its 64 KB cap (setting background_output_limit_mb): the oldest" in shown()
