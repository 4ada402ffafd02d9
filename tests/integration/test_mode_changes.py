"""Every way of changing the permission mode goes through AgentSession.set_permission_mode and its one rule.

bypassPermissions is reachable only in a session started in it: not through a `can_use_tool` answer's
`updatedPermissions`, a PermissionRequest hook's, the SDK's `set_permission_mode`, ACP or Shift+Tab.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.fakeapi import FakeAPI
from tests.fakeapi.demo_project import make_demo_project
from tests.fakeapi.script import reply, text, tool_use
from tests.integration.helpers import make_session
from tests.integration.test_hooks import bash, hook, write_project
from tests.integration.test_sdk_control import Sdk, control, user
from tui.agent.events import Notice, PermissionModeChanged

ROOT = Path(__file__).resolve().parents[2]
BYPASS = [{"type": "setMode", "mode": "bypassPermissions", "destination": "session"}]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    make_demo_project(tmp_path / "proj")
    return tmp_path / "proj"


def test_the_session_method_applies_the_rule_and_publishes_one_event(monkeypatch, project):
    session, rec = make_session(monkeypatch, "http://127.0.0.1:9", project)
    assert session.set_permission_mode("acceptEdits", "a test") is None
    assert session.set_permission_mode("acceptEdits", "a test") is None  # no change: no event
    refusal = session.set_permission_mode("bypassPermissions", "a test")
    assert refusal and "only in a session started in it" in refusal
    assert "no permission mode" in (session.set_permission_mode("yolo", "a test") or "")
    assert session.permission_mode == "acceptEdits"
    assert rec.of(PermissionModeChanged) == [
        PermissionModeChanged(mode="acceptEdits", previous="default", by="a test", ts=rec.events[0].ts)
    ]
    assert session.allowed_modes() == ["default", "acceptEdits", "plan"]
    started, _ = make_session(monkeypatch, "http://127.0.0.1:9", project, permission_mode="bypassPermissions")
    assert started.set_permission_mode("default", "x") is None
    assert started.set_permission_mode("bypassPermissions", "x") is None  # back to where it started


@pytest.mark.parametrize("mode", ["bypassPermissions", "acceptEdits"])
def test_a_can_use_tool_answer_switches_the_mode_only_as_the_rule_allows(monkeypatch, project, mode):
    script = [
        reply(tool_use("Bash", {"command": "touch one.txt", "description": "t"}), stop_reason="tool_use"),
        reply(text("Done."), stop_reason="end_turn"),
    ]
    with FakeAPI(script) as api:
        session, rec = make_session(monkeypatch, api.base_url, project)
        sdk = Sdk(session, permission_prompt=True)
        sdk.answers["can_use_tool"] = lambda request: {
            "behavior": "allow",
            "updatedPermissions": [{"type": "setMode", "mode": mode, "destination": "session"}],
        }
        sdk.send(user("touch it"))
        assert sdk.result()["result"] == "Done."
        assert sdk.end() == 0
    if mode == "bypassPermissions":
        assert session.permission_mode == "default"
        assert not rec.of(PermissionModeChanged)
        assert any("only in a session started in it" in n.text for n in rec.of(Notice))
    else:
        assert session.permission_mode == "acceptEdits"
        (changed,) = rec.of(PermissionModeChanged)
        assert changed.by == "the Agent SDK's can_use_tool"


def test_the_sdk_set_permission_mode_goes_through_the_same_rule(monkeypatch, project):
    with FakeAPI([]) as api:
        session, rec = make_session(monkeypatch, api.base_url, project)
        sdk = Sdk(session)
        sdk.send(control("m1", "set_permission_mode", mode="bypassPermissions"))
        sdk.send(control("m2", "set_permission_mode", mode="plan"))
        answers = [sdk.response(r) for r in ("m1", "m2")]
        sdk.end()
    assert "only in a session started in it" in answers[0]["error"]
    assert [(e.mode, e.by) for e in rec.of(PermissionModeChanged)] == [("plan", "the Agent SDK")]


@pytest.mark.parametrize("mode, expected", [("bypassPermissions", "default"), ("acceptEdits", "acceptEdits")])
def test_a_permission_request_hook_switches_the_mode_only_as_the_rule_allows(monkeypatch, tmp_path, mode, expected):
    decision = {
        "behavior": "allow",
        "updatedPermissions": [{"type": "setMode", "mode": mode, "destination": "session"}],
    }
    write_project(
        tmp_path,
        hook(
            "PermissionRequest",
            "Bash",
            json={"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": decision}},
        ),
        permissions={"ask": ["Bash(touch:*)"]},
    )
    with FakeAPI([reply(bash("touch made", "t1"), stop_reason="tool_use"), reply("ok")]) as api:
        session, rec = make_session(monkeypatch, api.base_url, tmp_path, transcript=False)
        session.run_turn("go")
    assert (tmp_path / "made").exists()
    assert session.permission_mode == expected
    changes = [(e.mode, e.by) for e in rec.of(PermissionModeChanged)]
    if mode == "bypassPermissions":
        assert changes == []
        assert any("only in a session started in it" in n.text for n in rec.of(Notice))
    else:
        assert changes == [("acceptEdits", "a PermissionRequest hook")]


def test_no_front_end_assigns_the_mode_itself():
    """The mode is written in one place (tui/agent/permission_mode.py) and kept by reload_policy."""
    offenders = []
    for path in sorted((ROOT / "tui").rglob("*.py")):
        for line in path.read_text().splitlines():
            if re.search(r"policy\.mode\s*=[^=]", line):
                offenders.append(str(path.relative_to(ROOT)))
    assert offenders == ["tui/agent/permission_mode.py", "tui/agent/session.py"]


async def test_acp_set_mode_goes_through_the_same_rule(project: Path, tmp_path: Path) -> None:
    from acp import RequestError

    from tests.integration.acp_helpers import Client, agent

    client = Client()
    async with agent(client, project, tmp_path, None) as (conn, _):
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        with pytest.raises(RequestError) as refused:
            await conn.set_session_mode(session_id=session.session_id, mode_id="bypassPermissions")
        await conn.set_session_mode(session_id=session.session_id, mode_id="acceptEdits")
    assert "only in a session started in it" in str(refused.value.data or refused.value)
    assert client.of("current_mode_update") == []  # the client's own change is not echoed back
