"""Cost, cache breaks, compaction and pins in the app: the real engine on the fake API, driven with Pilot."""

from __future__ import annotations

import html
import re
from concurrent.futures import Future
from pathlib import Path

import pytest

from tests.fakeapi import FakeAPI, reply, text, tool_use
from tests.fakeapi.demo_project import make_demo_project
from tui.agent import events as ev
from tui.agent.options import AgentOptions
from tui.agent.session import AgentSession
from tui.ui.app import AgentApp
from tui.ui.screens.compaction_dialog import CompactionDialog
from tui.ui.screens.context_screen import ContextScreen
from tui.ui.screens.memory_screen import MemoryScreen
from tui.ui.widgets.blocks import MarkerLine
from tui.ui.widgets.inspector import Inspector

from .conftest import SIZE, type_prompt, wait_for_dialog, wait_until
from .fake_engine import FakeSession

LONG = " with enough words in it to be worth caching across the requests of this session" * 3


def screen_text(app: AgentApp) -> str:
    """What the screen shows, as text (from Textual's SVG export)."""
    pieces = re.findall(r">([^<>]*)</text>", app.export_screenshot())
    return html.unescape("".join(pieces)).replace("\xa0", " ")


def marker_texts(app: AgentApp) -> list[str]:
    return [m.text for m in app.query(MarkerLine)]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = make_demo_project(tmp_path / "proj")
    (root / "AGENTS.md").write_text("# House rules\n- Keep functions small.\n")
    return root


def priced_app(api: FakeAPI, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AgentApp:
    monkeypatch.setenv("ANTHROPIC_BASE_URL", api.base_url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    options = AgentOptions(
        project_dir=project,
        model="claude-sonnet-5-5",
        interactive=True,
        transcript=False,
        sessions_dir=tmp_path / "sessions",
    )
    return AgentApp(options, session=AgentSession(options), permission_grace_s=0)


async def run_prompt(pilot, app: AgentApp, prompt: str) -> None:
    await app.submit_prompt(prompt)
    await wait_until(pilot, lambda: app.session.running or not app.controller.busy)
    await wait_until(pilot, lambda: not app.session.running and not app.controller.busy, timeout=30)


async def test_cache_break_marker_cost_report_and_inspector_cost_view(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = [
        reply(text("Reading."), tool_use("Read", {"file_path": str(project / "a.py")}), stop_reason="tool_use"),
        reply(f"a.py greets{LONG}"),
        reply(f"second{LONG}"),
    ]
    with FakeAPI(script) as api:
        app = priced_app(api, project, tmp_path, monkeypatch)
        async with app.run_test(size=SIZE) as pilot:
            await run_prompt(pilot, app, f"what does a.py do?{LONG}")
            (project / "AGENTS.md").write_text("# House rules\n- Use tabs.\n")
            app.session.reload_memory()
            await run_prompt(pilot, app, f"and now?{LONG}")
            assert "cache miss: system prompt changed (memory files edited)" in " ".join(marker_texts(app))
            await type_prompt(pilot, "/cost")
            await wait_until(pilot, lambda: any(t.startswith("session: $") for t in marker_texts(app)))
            report = next(t for t in marker_texts(app) if t.startswith("session: $"))
            for phrase in (
                "by kind",
                "by part",
                "tool results",
                "turn 1",
                "turn 2",
                "by model",
                "claude-sonnet-5-5",
                "by agent",
                "main",
                "request 3, turn 2: system prompt changed",
            ):
                assert phrase in report, phrase

            await pilot.press("f2")
            inspector = app.query_one(Inspector)
            await wait_until(pilot, lambda: inspector.display and inspector.region.width > 0)
            assert [c.cost is not None for c in inspector.model.calls] == [True, True, True]
            inspector.select_call(3)
            inspector.show_view("cost")
            await pilot.pause(0.2)
            shown = screen_text(app)
            assert "cache miss" in shown and "memory files edited" in shown and "tool results" in shown
            assert inspector.view_json("cost")["cost"]["cache_miss"]["cause"] == "system"


async def test_context_memory_and_pin_screens_after_a_compaction(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = [reply(f"answer {n}{LONG}") for n in range(4)] + [reply("SUMMARY: four answers given.")]
    with FakeAPI(script) as api:
        app = priced_app(api, project, tmp_path, monkeypatch)
        async with app.run_test(size=SIZE) as pilot:
            await run_prompt(pilot, app, "#pin Never touch b.py.")
            assert app.session.pins == ["Never touch b.py."]
            assert any("pinned: “Never touch b.py.”" in t for t in marker_texts(app))
            for n in range(3):
                await run_prompt(pilot, app, f"question {n}")
            await type_prompt(pilot, "/compact")
            said = lambda: [t for t in marker_texts(app) if "/context shows what was dropped" in t]  # noqa: E731
            await wait_until(pilot, said, timeout=30)
            done = said()[-1]
            assert "turn 1 (2 messages" in done and "turns 2–4 kept verbatim" in done
            assert "1 pinned prompt kept" in done
            await type_prompt(pilot, "/context")
            await wait_until(pilot, lambda: isinstance(app.screen, ContextScreen))
            await pilot.pause(0.2)
            shown = screen_text(app)
            assert "Dropped" in shown and "SUMMARY: four answers given." in shown and "#1 user" in shown
            await pilot.press("escape")
            await pilot.press("f3", "f2")
            inspector = app.query_one(Inspector)
            await wait_until(pilot, lambda: inspector.display and inspector.region.width > 0)
            [summary_call] = [c for c in inspector.model.calls if c.is_compaction]
            assert summary_call.status == "compaction" and summary_call.cost["kind"] == "compaction"
            inspector.select_call(summary_call.number)
            inspector.show_view("cost")
            await pilot.pause(0.2)
            shown = screen_text(app)
            assert "summary that replaced it" in shown and "SUMMARY: four answers given." in shown
            assert "#1 user" in shown and "Never touch b.py." in shown  # the pinned prompt was among the dropped
            await pilot.press("f2")
            await type_prompt(pilot, "/memory")
            await wait_until(pilot, lambda: isinstance(app.screen, MemoryScreen))
            await pilot.pause(0.2)
            screen = screen_text(app)
            assert "system[1]" in screen and "<memory_file path=" in screen and "Keep functions small." in screen


async def test_the_compaction_dialog_answers_now_with_a_focus_or_not_now(fake_session: FakeSession) -> None:
    plan = {
        "possible": True,
        "messages": 30,
        "used_tokens": 170_000,
        "window": 200_000,
        "pinned": ["Never b.py"],
        "summarised": {"messages": 22, "turns": "turns 1–7", "tokens": 41_300, "earlier_summary": False},
        "kept": {"messages": 8, "turns": "turns 8–10", "tokens": 9_800},
    }
    app = AgentApp(fake_session.options, session=fake_session, permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        answers = []
        for keys in (("3",), ("2", *"the parser", "enter"), ("1",)):
            reply: Future = Future()
            fake_session.bus.publish(ev.CompactionProposed(plan=plan, reply=reply))
            await wait_for_dialog(pilot, CompactionDialog)
            await pilot.pause(0.2)
            screen = screen_text(app)
            assert "turns 1–7" in screen and "turns 8–10" in screen and "41.3k" in screen and "85%" in screen
            await pilot.press(*keys)
            answers.append(reply.result(timeout=5))
            await wait_until(pilot, lambda: not isinstance(app.screen, CompactionDialog))
    assert answers == [
        {"choice": "later", "focus": ""},
        {"choice": "focus", "focus": "the parser"},
        {"choice": "now", "focus": ""},
    ]
