"""The first request of each front end and mode, as the fake API receives it: every rule is there (found by its
key in the rule tables, not by wording), each tool is offered only where it can work, the approvals sentence
names the front end and mode, and max_tokens is the model's output limit.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from acp import text_block

from tests.fakeapi import FakeAPI, reply, text, tool_use
from tests.fakeapi.demo_project import make_demo_project
from tests.integration.acp_helpers import Client, agent
from tests.integration.helpers import make_session
from tui.agent.api.prompts import SUBAGENT_RULE_KEYS, SYSTEM_RULES
from tui.agent.context.context import reply_reserve, summary_budget
from tui.agent.loop.approvals import approval_text, mode_reminder
from tui.agent.loop.tool_belt import PLAN_MODE_REMINDER, PLAN_MODE_REMINDER_UNATTENDED
from tui.agent.options import AgentOptions
from tui.agent.prompt_rules import TOOL_RULES
from tui.config.agent_files import GENERAL_PROMPT
from tui.headless.run import run_headless

ASKING = ("AskUserQuestion", "ExitPlanMode")
#: sentences that used to mislead the model (issue 33): none of them may come back
GONE = (
    "approves anything that writes files",
    "`--yes` or `-y`",
    "(`cmd &`) keeps running",
    "do not repeat the same call",
    "Stay inside the project directory",
    "never run `grep` or `rg` through Bash",
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_demo_project(tmp_path / "proj")


def system_text(body: dict[str, Any]) -> str:
    return "\n".join(block["text"] for block in body["system"])


def tools_of(body: dict[str, Any]) -> dict[str, str]:
    return {t["name"]: t.get("description", "") for t in body.get("tools", ())}


def check_rules(body: dict[str, Any], system_keys: tuple[str, ...] | None = None) -> None:
    """Each system rule in system[] and each tool rule in its tool's description; no misleading sentence."""
    system = system_text(body)
    for key in system_keys if system_keys is not None else tuple(SYSTEM_RULES):
        assert SYSTEM_RULES[key].text in system, f"rule {key} missing from the system prompt"
    tools = tools_of(body)
    for tool, rules in TOOL_RULES.items():
        if tool in tools:
            for rule in rules:
                assert rule.text in tools[tool], f"rule {rule.key} missing from {tool}"
    wire = json.dumps(body)
    for sentence in GONE:
        assert sentence not in wire


def first_body(api: FakeAPI) -> dict[str, Any]:
    return next(r.body for r in api.message_requests if r.body.get("tools"))


def app_request(monkeypatch: pytest.MonkeyPatch, project: Path, **opts: Any) -> dict[str, Any]:
    with FakeAPI([reply("Hi.")]) as api:
        session, _ = make_session(monkeypatch, api.base_url, project, interactive=True, transcript=False, **opts)
        session.run_turn("hello")
        session.close()
        assert api.errors == []
    return first_body(api)


def print_request(
    monkeypatch: pytest.MonkeyPatch, project: Path, *, sdk: bool = False, callback: bool = False, **opts: Any
) -> tuple[dict[str, Any], str]:
    """The first request of `-p` (or, with `sdk`, of an Agent SDK program's stream-json input) and stderr."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    out, err = io.StringIO(), io.StringIO()
    line = {"type": "user", "message": {"role": "user", "content": "hello"}, "parent_tool_use_id": None}
    with FakeAPI([reply("Hi.")]) as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.base_url)
        options = AgentOptions(project_dir=project, transcript=False, retry_base_delay=0.01, **opts)
        stream = io.StringIO(json.dumps(line) + "\n") if sdk else None
        fmt = "stream-json" if sdk else "text"
        prompt = "" if sdk else "hello"
        run_headless(options, prompt, fmt, out=out, err=err, input_stream=stream, permission_prompt=callback)
        assert api.errors == []
    return first_body(api), err.getvalue()


def test_the_app_offers_the_asking_tools_and_says_the_user_approves(monkeypatch, project) -> None:
    body = app_request(monkeypatch, project)
    check_rules(body)
    assert {*ASKING, "TodoWrite", "Agent", "Bash"} <= set(tools_of(body))
    assert approval_text("app", "default", can_ask=True) in system_text(body)
    assert body["max_tokens"] == 128_000  # claude-sonnet-5-5's output limit


def test_print_mode_offers_no_tool_that_needs_someone_and_says_calls_are_refused(monkeypatch, project) -> None:
    body, _ = print_request(monkeypatch, project, allowed_tools=["Bash(git *)"])
    check_rules(body)
    tools = set(tools_of(body))
    assert not tools & {*ASKING, "TodoWrite"}  # nobody answers, nobody sees the list (as Claude Code's -p)
    assert {"Agent", "Bash", "Edit"} <= tools
    approvals = approval_text("print", "default", can_ask=False, allowed=["Bash(git *)"])
    assert approvals in system_text(body) and "is refused, not asked" in approvals and "Bash(git *)" in approvals


def test_print_mode_offers_todowrite_when_tools_names_it(monkeypatch, project) -> None:
    body, _ = print_request(monkeypatch, project, tool_names=["Read", "TodoWrite", "AskUserQuestion"])
    assert set(tools_of(body)) == {"Read", "TodoWrite"}  # nobody could answer AskUserQuestion


def test_print_mode_in_plan_mode_asks_for_the_plan_in_the_reply(monkeypatch, project) -> None:
    body, _ = print_request(monkeypatch, project, permission_mode="plan")
    check_rules(body)
    assert not set(tools_of(body)) & set(ASKING)
    assert approval_text("print", "plan", can_ask=False) in system_text(body)
    prompt = json.dumps(body["messages"][-1])
    assert json.dumps(PLAN_MODE_REMINDER_UNATTENDED)[1:-1] in prompt and "ExitPlanMode" not in prompt


def test_the_app_in_plan_mode_offers_exit_plan_mode(monkeypatch, project) -> None:
    body = app_request(monkeypatch, project, permission_mode="plan")
    check_rules(body)
    assert set(ASKING) <= set(tools_of(body))
    assert "call ExitPlanMode with the plan" in approval_text("app", "plan", can_ask=True)
    assert approval_text("app", "plan", can_ask=True) in system_text(body)
    assert json.dumps(PLAN_MODE_REMINDER)[1:-1] in json.dumps(body["messages"][-1])


def test_bypass_mode_says_nobody_reviews_a_step(monkeypatch, project) -> None:
    body = app_request(monkeypatch, project, permission_mode="bypassPermissions")
    assert "nobody reviews a step first" in approval_text("app", "bypassPermissions", can_ask=True)
    assert approval_text("app", "bypassPermissions", can_ask=True) in system_text(body)


def test_an_agent_sdk_program_gets_the_todo_list_but_no_questions(monkeypatch, project) -> None:
    body, err = print_request(monkeypatch, project, sdk=True, permission_mode="acceptEdits")
    check_rules(body)
    tools = set(tools_of(body))
    assert "TodoWrite" in tools and not tools & set(ASKING), err
    assert approval_text("sdk", "acceptEdits", can_ask=False) in system_text(body)


def test_an_agent_sdk_program_with_can_use_tool_is_said_to_decide(monkeypatch, project) -> None:
    body, _ = print_request(monkeypatch, project, sdk=True, callback=True)
    approvals = approval_text("sdk", "default", can_ask=True)
    assert "the program's permission callback" in approvals and approvals in system_text(body)


def test_the_sdks_empty_system_prompt_keeps_the_tool_rules_and_the_approvals(monkeypatch, project) -> None:
    body, _ = print_request(monkeypatch, project, sdk=True, system_prompt="")  # the SDK's default system_prompt
    check_rules(body, system_keys=())
    assert SYSTEM_RULES["report-faithfully"].text not in system_text(body)
    assert approval_text("sdk", "default", can_ask=False) in system_text(body)


async def test_an_acp_editor_asks_the_user_and_offers_every_tool(project: Path, tmp_path: Path) -> None:
    client = Client()
    with FakeAPI([reply("Hi.")]) as api:
        async with agent(client, project, tmp_path, api.base_url) as (conn, _):
            session = await conn.new_session(cwd=str(project), mcp_servers=[])
            await conn.prompt(session_id=session.session_id, prompt=[text_block("hello")])
        assert api.errors == []
    body = first_body(api)
    check_rules(body)
    assert {*ASKING, "TodoWrite"} <= set(tools_of(body))
    assert approval_text("acp", "default", can_ask=True) in system_text(body)


def test_a_subagent_keeps_the_rules_that_bind_its_work(monkeypatch, project) -> None:
    script = [
        reply(tool_use("Agent", {"description": "look", "prompt": "Find b.py"}), stop_reason="tool_use"),
        reply(text("b.py is there.")),
        reply(text("Done.")),
    ]
    with FakeAPI(script) as api:
        session, _ = make_session(monkeypatch, api.base_url, project, interactive=True, transcript=False)
        session.run_turn("look around")
        session.close()
        assert api.errors == []
    sub = next(r.body for r in api.message_requests if GENERAL_PROMPT in system_text(r.body))
    check_rules(sub, SUBAGENT_RULE_KEYS)
    assert not set(tools_of(sub)) & set(ASKING)
    assert approval_text("app", "default", can_ask=True) in system_text(sub)


def test_a_mode_changed_later_is_told_once_in_a_reminder(monkeypatch, project) -> None:
    with FakeAPI([reply("one"), reply("two"), reply("three")]) as api:
        session, _ = make_session(monkeypatch, api.base_url, project, interactive=True, transcript=False)
        session.run_turn("first")
        session.policy.mode = "acceptEdits"  # what Shift+Tab does
        session.run_turn("second")
        session.run_turn("third")
        session.close()
    bodies = [r.body for r in api.message_requests]
    reminder = json.dumps(mode_reminder("acceptEdits", "app", True))[1:-1]
    assert [reminder in json.dumps(b["messages"][-1]) for b in bodies] == [False, True, False]
    assert len({json.dumps(b["system"]) for b in bodies}) == 1  # the cached system prompt never changed


@pytest.mark.parametrize(
    ("model", "setting", "sent"),
    [
        ("claude-opus-5-5", None, 128_000),
        ("claude-opus-4-5", None, 64_000),
        ("claude-sonnet-5-5", 2_000, 2_000),
        ("claude-haiku-4-5", 500_000, 64_000),  # a setting past the limit is kept within it
        ("my-proxy-model", None, 32_000),  # a model the table does not list
        ("my-proxy-model", 100_000, 100_000),
    ],
)
def test_max_tokens_is_the_models_output_limit_unless_set(monkeypatch, project, model, setting, sent) -> None:
    with FakeAPI([reply("Hi.")]) as api:
        session, _ = make_session(monkeypatch, api.base_url, project, model=model, max_tokens=setting, transcript=False)
        session.run_turn("hello")
        session.close()
    assert api.message_requests[0].body["max_tokens"] == sent


def test_compaction_keeps_room_for_a_reply_not_the_whole_output_limit(monkeypatch, project) -> None:
    with FakeAPI([reply("Hi.")]) as api:
        session, _ = make_session(monkeypatch, api.base_url, project, model="claude-opus-4-5", transcript=False)
        assert (reply_reserve(session), summary_budget(session)) == (16_000, 8_192)  # not 64,000 of a 200,000 window
        session.options.max_tokens = 2_000
        assert (reply_reserve(session), summary_budget(session)) == (2_000, 2_000)
        session.close()
