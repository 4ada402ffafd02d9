"""Skills: listed to the model through the Skill tool, loaded by it, absent when there are none."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tui.agent.api.request import build_request
from tui.agent.options import AgentOptions
from tui.agent.session import AgentSession
from tui.hooks.skills import LISTING_HEADER
from tui.tools.base import Tool, ToolError

from .helpers import user_claude, write  # noqa: F401 - fixture


def _session(project: Path) -> AgentSession:
    return AgentSession(AgentOptions(project_dir=project, transcript=False))


def _first_request(session: AgentSession) -> dict:
    return build_request(
        model="m",
        max_tokens=1,
        system=session.system_blocks(),
        tools=session.tool_definitions(),
        messages=[{"role": "user", "content": "hi"}],
    )


def test_no_skills_no_skill_tool_and_no_bytes_in_the_request(tmp_path, user_claude):
    project = tmp_path / "p"
    project.mkdir()
    body = json.dumps(_first_request(_session(project)))
    assert '"Skill"' not in body and LISTING_HEADER not in body


def test_skills_are_listed_and_loaded_with_their_arguments(tmp_path, user_claude):
    project = tmp_path / "p"
    write(
        project / ".claude/skills/release/SKILL.md",
        "---\nname: release\ndescription: Cut a release\n---\nRelease version $0 from ${CLAUDE_SKILL_DIR}.\n",
    )
    write(project / ".claude/skills/release/checklist.md", "step 1")
    write(
        project / ".claude/skills/secret/SKILL.md",
        "---\ndescription: only by hand\ndisable-model-invocation: true\n---\nhidden\n",
    )
    session = _session(project)
    skill_def = next(t for t in _first_request(session)["tools"] if t["name"] == "Skill")
    assert skill_def["input_schema"]["required"] == ["skill"]
    assert set(skill_def["input_schema"]["properties"]) == {"skill", "args"}
    assert f"{LISTING_HEADER}\n\n- release: Cut a release" in skill_def["description"]
    assert "secret" not in skill_def["description"]
    tool = next(t for t in session.tools if t.name == "Skill")
    result = tool.run({"skill": "/release", "args": "2.0"}, session._tool_context("t1"))
    folder = project / ".claude/skills/release"
    assert result.text() == f"Base directory for this skill: {folder}\n\nRelease version 2.0 from {folder}.\n"


def _with_skill_a(tmp_path: Path, extra: tuple[str, str]) -> tuple[AgentSession, Tool]:
    project = tmp_path / "p"
    write(project / ".claude/skills/a/SKILL.md", "---\ndescription: A\n---\na\n")
    write(project / extra[0], extra[1])
    session = _session(project)
    return session, next(t for t in session.tools if t.name == "Skill")


def test_the_skill_tool_refuses_unknown_and_user_only_skills(tmp_path, user_claude):
    secret = (".claude/skills/secret/SKILL.md", "---\ndescription: s\ndisable-model-invocation: on\n---\ns\n")
    session, tool = _with_skill_a(tmp_path, secret)
    with pytest.raises(ToolError, match=r"Unknown skill: nope. Available skills: a."):
        tool.run({"skill": "nope"}, session._tool_context("t"))
    with pytest.raises(ToolError, match="only the user can run it"):
        tool.run({"skill": "secret"}, session._tool_context("t"))


def test_a_deny_rule_on_skill_blocks_it(tmp_path, user_claude):
    session, tool = _with_skill_a(tmp_path, (".claude/settings.json", '{"permissions": {"deny": ["Skill(a)"]}}'))
    verdict = session.policy.check(tool, {"skill": "a"}, session._tool_context("t"))
    assert verdict.decision == "deny"


def test_a_skill_the_model_loads_allows_its_tools_until_the_turn_ends(tmp_path, user_claude):
    from tui.agent.events import TurnFinished

    from .helpers import trust

    session, tool = _with_skill_a(
        tmp_path,
        (".claude/skills/t/SKILL.md", "---\ndescription: tests\nallowed-tools: Bash(make test:*)\n---\nRun them\n"),
    )
    tool.run({"skill": "t"}, session._tool_context("x"))
    assert "Bash(make test:*)" not in session.policy.session_allow  # an untrusted folder's file grants nothing
    trust(session.options.project_dir)
    session.reload_policy()
    tool.run({"skill": "t"}, session._tool_context("x"))
    assert "Bash(make test:*)" in session.policy.session_allow
    session.publish(
        TurnFinished(
            turn_id=1,
            stop_reason="end_turn",
            is_error=False,
            num_iterations=1,
            duration_ms=1,
            usage={},
            cost_usd=0.0,
            session_usage={},
            session_cost_usd=0.0,
        )
    )
    assert "Bash(make test:*)" not in session.policy.session_allow
