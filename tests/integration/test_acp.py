"""`agent-tui acp` as an editor drives it: the SDK's own client classes over stdio, the fake API behind it."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
from acp import RequestError, resource_link_block, text_block
from acp.schema import EmbeddedResourceContentBlock, ImageContentBlock, McpServerStdio, TextResourceContents

from tests.fakeapi import FakeAPI, reply, stall, text, thinking, tool_use
from tests.fakeapi.demo_project import make_demo_project
from tests.integration.acp_helpers import Client, agent, sessions_dir, stderr_of

ROOT = Path(__file__).resolve().parents[2]
TODO = "    # TODO: validate inputs"
DONE = "    # inputs are validated by the caller"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_demo_project(tmp_path / "proj")


def edit_script(project: Path) -> list:
    return [
        reply(
            text("Fixing the TODO."),
            tool_use("Edit", {"file_path": "a.py", "old_string": TODO, "new_string": DONE}),
            stop_reason="tool_use",
        ),
        reply(text("Done.")),
    ]


def read_then_edit(project: Path) -> list:
    return [
        reply(tool_use("Read", {"file_path": str(project / "a.py")}), stop_reason="tool_use"),
        *edit_script(project),
    ]


async def test_initialize_offers_sessions_loading_resources_and_mcp(project: Path, tmp_path: Path) -> None:
    async with agent(Client(), project, tmp_path, None) as (conn, _):
        answer = await conn.initialize(protocol_version=1)
    caps = answer.agent_capabilities
    assert answer.protocol_version == 1 and answer.agent_info.name == "agent-tui"
    assert caps.load_session and caps.prompt_capabilities.embedded_context and not caps.prompt_capabilities.image
    assert caps.mcp_capabilities.http and caps.mcp_capabilities.sse and caps.session_capabilities.list is not None


async def test_a_prompt_streams_text_thoughts_tool_calls_and_the_plan(project: Path, tmp_path: Path) -> None:
    todos = [
        {"content": "Read a.py", "status": "in_progress", "activeForm": "Reading a.py"},
        {"content": "Report", "status": "pending", "activeForm": "Reporting"},
    ]
    script = [
        reply(
            thinking("The user wants a.py."),
            text("Let me look."),
            tool_use("TodoWrite", {"todos": todos}),
            tool_use("Read", {"file_path": "a.py", "offset": 2}),
            stop_reason="tool_use",
        ),
        reply(text("a.py adds two numbers.")),
    ]
    client = Client()
    with FakeAPI(script) as api:
        async with agent(client, project, tmp_path, api.base_url) as (conn, _):
            session = await conn.new_session(cwd=str(project), mcp_servers=[])
            answer = await conn.prompt(session_id=session.session_id, prompt=[text_block("what is in a.py?")])
        assert api.errors == []
    assert answer.stop_reason == "end_turn"
    assert client.text() == "Let me look.a.py adds two numbers."
    assert client.text("agent_thought_chunk") == "The user wants a.py."
    calls = {c.title.split()[0]: c for c in client.of("tool_call")}
    assert calls["Read"].kind == "read" and calls["Read"].status == "pending"
    assert [(loc.path, loc.line) for loc in calls["Read"].locations] == [(str(project / "a.py"), 2)]
    assert calls["Update"].kind == "think"  # TodoWrite's label is "Update todos (2)"
    done = [u for u in client.of("tool_call_update") if u.status == "completed"]
    read_done = next(u for u in done if u.tool_call_id == calls["Read"].tool_call_id)
    assert "# TODO: validate inputs" in read_done.content[0].content.text
    plan = client.of("plan")[-1]
    assert [(e.content, e.status) for e in plan.entries] == [("Read a.py", "in_progress"), ("Report", "pending")]
    assert client.of("usage_update") and client.of("usage_update")[-1].size > 0


async def test_an_edit_asks_the_client_and_allow_once_writes_it_with_a_diff(project: Path, tmp_path: Path) -> None:
    client = Client(answer=lambda call, options: "allow_once")
    with FakeAPI(read_then_edit(project)) as api:
        async with agent(client, project, tmp_path, api.base_url) as (conn, _):
            session = await conn.new_session(cwd=str(project), mcp_servers=[])
            answer = await conn.prompt(session_id=session.session_id, prompt=[text_block("fix the TODO in a.py")])
    assert answer.stop_reason == "end_turn"
    assert DONE in (project / "a.py").read_text()
    [(asked, options)] = client.asked
    assert asked.title == "Edit a.py" and asked.kind == "edit"
    assert [(o.option_id, o.kind) for o in options] == [
        ("allow_once", "allow_once"),
        ("allow_always", "allow_always"),
        ("reject_once", "reject_once"),
    ]
    assert options[1].name == "Always allow Edit"  # the rule "always" saves (every edit in the project)
    diff = next(c for c in asked.content if c.type == "diff")
    assert diff.path == str(project / "a.py") and TODO in diff.old_text and DONE in diff.new_text
    finished = [u for u in client.of("tool_call_update") if u.tool_call_id == asked.tool_call_id and u.status]
    assert [u.status for u in finished] == ["in_progress", "completed"]
    shown = finished[-1].content[0]
    assert shown.type == "diff" and TODO in shown.old_text and DONE in shown.new_text


async def test_reject_once_leaves_the_file_and_tells_the_model(project: Path, tmp_path: Path) -> None:
    client = Client(answer=lambda call, options: "reject_once")
    with FakeAPI(read_then_edit(project)) as api:
        async with agent(client, project, tmp_path, api.base_url) as (conn, _):
            session = await conn.new_session(cwd=str(project), mcp_servers=[])
            await conn.prompt(session_id=session.session_id, prompt=[text_block("fix the TODO")])
        result = api.message_requests[2].body["messages"][-1]["content"][0]
    assert TODO in (project / "a.py").read_text()
    assert result["is_error"] and "denied" in result["content"]
    failed = [u for u in client.of("tool_call_update") if u.status == "failed"]
    assert len(failed) == 1


async def test_allow_always_saves_the_rule_so_the_next_edit_does_not_ask(project: Path, tmp_path: Path) -> None:
    again = [
        reply(tool_use("Read", {"file_path": "b.py"}), stop_reason="tool_use"),
        reply(
            tool_use(
                "Edit",
                {"file_path": "b.py", "old_string": "    # TODO: parse arguments", "new_string": "    # no arguments"},
            ),
            stop_reason="tool_use",
        ),
        reply(text("Done too.")),
    ]
    client = Client(answer=lambda call, options: "allow_always")
    with FakeAPI([*read_then_edit(project), *again]) as api:
        async with agent(client, project, tmp_path, api.base_url) as (conn, _):
            session = await conn.new_session(cwd=str(project), mcp_servers=[])
            await conn.prompt(session_id=session.session_id, prompt=[text_block("fix a.py")])
            await conn.prompt(session_id=session.session_id, prompt=[text_block("and b.py")])
    assert len(client.asked) == 1  # the saved rule let the second edit through
    assert "no arguments" in (project / "b.py").read_text()
    saved = (project / ".agent-tui" / "settings.local.toml").read_text()
    assert '"Edit"' in saved


async def test_the_plan_mode_from_the_client_blocks_edits_until_switched(project: Path, tmp_path: Path) -> None:
    client = Client()
    with FakeAPI(read_then_edit(project)) as api:
        async with agent(client, project, tmp_path, api.base_url) as (conn, _):
            session = await conn.new_session(cwd=str(project), mcp_servers=[])
            assert session.modes.current_mode_id == "default"
            assert [m.id for m in session.modes.available_modes] == ["default", "acceptEdits", "plan"]
            await conn.set_session_mode(session_id=session.session_id, mode_id="acceptEdits")
            await conn.prompt(session_id=session.session_id, prompt=[text_block("fix it")])
    assert client.asked == [] and DONE in (project / "a.py").read_text()


async def test_read_and_edit_go_through_the_clients_buffers(project: Path, tmp_path: Path) -> None:
    path = str(project / "a.py")
    unsaved = (project / "a.py").read_text() + "# an unsaved line in the editor\n"
    client = Client(buffers={path: unsaved})
    with FakeAPI(read_then_edit(project)) as api:
        async with agent(client, project, tmp_path, api.base_url, "--permission-mode", "acceptEdits") as (conn, _):
            session = await conn.new_session(cwd=str(project), mcp_servers=[])
            await conn.prompt(session_id=session.session_id, prompt=[text_block("fix it")])
        seen = api.message_requests[1].body["messages"][-1]["content"][0]["content"]
    assert "an unsaved line in the editor" in seen  # the model read the buffer, not the disk
    assert path in client.reads
    [(written, content)] = client.writes
    assert written == path and DONE in content and "an unsaved line" in content


async def test_the_clients_mcp_server_joins_the_session(project: Path, tmp_path: Path) -> None:
    kitchen = McpServerStdio(name="kitchen", command=sys.executable, args=["-m", "tests.mcp_servers.kitchen"], env=[])
    script = [reply(tool_use("mcp__kitchen__add", {"a": 2, "b": 3}), stop_reason="tool_use"), reply(text("5"))]
    with FakeAPI(script) as api:
        async with agent(Client(), project, tmp_path, api.base_url, "--allowedTools", "mcp__kitchen") as (conn, _):
            session = await conn.new_session(cwd=str(project), mcp_servers=[kitchen])
            await conn.prompt(session_id=session.session_id, prompt=[text_block("add 2 and 3")])
        bodies = [r.body for r in api.message_requests]
    assert "mcp__kitchen__add" in {t["name"] for t in bodies[0]["tools"]}
    assert bodies[1]["messages"][-1]["content"][0]["content"] == "5"


async def test_resources_attach_under_reads_rules_and_images_are_said_not_sent(project: Path, tmp_path: Path) -> None:
    (project / ".agent-tui").mkdir()
    (project / ".agent-tui" / "settings.toml").write_text('[permissions]\ndeny = ["Read(./secret.txt)"]\n')
    (project / "secret.txt").write_text("hunter2\n")
    outside = tmp_path / "outside.txt"
    outside.write_text("far away\n")
    prompt = [
        text_block("look at these"),
        resource_link_block("a.py", (project / "a.py").as_uri()),
        resource_link_block("secret.txt", (project / "secret.txt").as_uri()),
        EmbeddedResourceContentBlock(
            type="resource",
            resource=TextResourceContents(uri=(project / "b.py").as_uri(), text="print('the unsaved buffer')\n"),
        ),
        resource_link_block("outside.txt", outside.as_uri()),
        ImageContentBlock(type="image", data="iVBORw0KGgo=", mime_type="image/png"),
    ]
    client = Client(answer=lambda call, options: None)  # the question about the file outside: no answer
    with FakeAPI([reply(text("Seen."))]) as api:
        async with agent(client, project, tmp_path, api.base_url) as (conn, _):
            session = await conn.new_session(cwd=str(project), mcp_servers=[])
            await conn.prompt(session_id=session.session_id, prompt=prompt)
        sent = api.message_requests[0].body["messages"][-1]["content"][0]["text"]
    assert sent.startswith("look at these") and "def add(a, b):" in sent and "the unsaved buffer" in sent
    assert "hunter2" not in sent and "far away" not in sent
    said = client.text()
    assert "secret.txt was not attached: Read on" in said and "outside.txt was not attached" in said
    assert "image" in said and "not sent to the model" in said
    assert [call.title for call, _ in client.asked] == [f"Attach @{outside}"]


async def test_cancel_ends_the_turn_as_cancelled_and_the_session_goes_on(project: Path, tmp_path: Path) -> None:
    client = Client()
    script = [stall(after_events=4, seconds=600, reply=reply(text("This answer never ends"))), reply(text("Back."))]
    with FakeAPI(script) as api:
        async with agent(client, project, tmp_path, api.base_url) as (conn, _):
            session = await conn.new_session(cwd=str(project), mcp_servers=[])
            turn = asyncio.create_task(conn.prompt(session_id=session.session_id, prompt=[text_block("go")]))
            await client.wait_for(lambda c: bool(c.text()))
            with pytest.raises(RequestError) as busy:  # one prompt at a time per session
                await conn.prompt(session_id=session.session_id, prompt=[text_block("and this?")])
            assert busy.value.code == -32600 and "still answering a prompt" in str(busy.value)
            await conn.cancel(session_id=session.session_id)
            assert (await turn).stop_reason == "cancelled"
            again = await conn.prompt(session_id=session.session_id, prompt=[text_block("again")])
    assert again.stop_reason == "end_turn" and client.text().endswith("Back.")


async def test_load_replays_a_saved_session_and_continues_it(project: Path, tmp_path: Path) -> None:
    with FakeAPI([*read_then_edit(project), reply(text("Still fixed."))]) as api:
        first = Client()
        async with agent(first, project, tmp_path, api.base_url, "--permission-mode", "acceptEdits") as (conn, _):
            session = await conn.new_session(cwd=str(project), mcp_servers=[])
            await conn.prompt(session_id=session.session_id, prompt=[text_block("fix the TODO")])
        second = Client()
        async with agent(second, project, tmp_path, api.base_url) as (conn, _):
            listed = await conn.list_sessions(cwd=str(project))
            assert [s.session_id for s in listed.sessions] == [session.session_id]
            await conn.load_session(cwd=str(project), session_id=session.session_id, mcp_servers=[])
            replayed = list(second.updates)
            await conn.prompt(session_id=session.session_id, prompt=[text_block("is it fixed?")])
        history = api.message_requests[-1].body["messages"]
    kinds = [u.session_update for u in replayed]
    assert kinds[0] == "user_message_chunk" and replayed[0].content.text == "fix the TODO"
    assert {"tool_call", "tool_call_update", "agent_message_chunk"} <= set(kinds)
    assert (
        "".join(u.content.text for u in replayed if u.session_update == "agent_message_chunk")
        == "Fixing the TODO.Done."
    )
    assert [c.kind for c in replayed if c.session_update == "tool_call"] == ["read", "edit"]
    assert history[0]["content"][0]["text"] == "fix the TODO" and history[-1]["content"][0]["text"] == "is it fixed?"
    assert len(list(sessions_dir(tmp_path).rglob(f"{session.session_id}.jsonl"))) == 1
    assert "Traceback" not in stderr_of(tmp_path)


async def test_questions_and_the_plan_are_asked_through_the_client(project: Path, tmp_path: Path) -> None:
    question = {
        "question": "Which style?",
        "header": "Style",
        "multiSelect": False,
        "options": [{"label": "Short"}, {"label": "Long"}],
    }
    script = [
        reply(tool_use("AskUserQuestion", {"questions": [question]}), stop_reason="tool_use"),
        reply(tool_use("ExitPlanMode", {"plan": "1. Fix the TODO in a.py"}), stop_reason="tool_use"),
        *read_then_edit(project),
    ]

    def answer(call: object, options: list) -> str:
        ids = [o.option_id for o in options]
        return "auto" if "auto" in ids else "1" if "1" in ids else "allow_once"

    client = Client(answer=answer)
    with FakeAPI(script) as api:
        async with agent(client, project, tmp_path, api.base_url) as (conn, _):
            session = await conn.new_session(cwd=str(project), mcp_servers=[])
            await conn.set_session_mode(session_id=session.session_id, mode_id="plan")
            await conn.prompt(session_id=session.session_id, prompt=[text_block("plan, then fix")])
        results = [r.body["messages"][-1]["content"][0]["content"] for r in api.message_requests[1:3]]
    assert [call.title for call, _ in client.asked] == ["Which style?", "Approve the plan"]
    assert results[0].startswith('User has answered your questions: "Which style?"="Long"')
    assert results[1].startswith("User has approved your plan; plan mode is off and edits are accepted")
    assert [u.current_mode_id for u in client.of("current_mode_update")] == ["acceptEdits"]
    assert DONE in (project / "a.py").read_text()  # accepted automatically: no third question
