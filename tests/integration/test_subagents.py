"""Subagents (the Agent tool) end to end through the real SDK against the loopback fake Messages API."""

from __future__ import annotations

import gc
import io
import json
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.fakeapi import FakeAPI
from tests.fakeapi.demo_project import make_demo_project
from tests.fakeapi.script import http_error, reply, stall, text, tool_use
from tests.integration.helpers import make_session
from tui.agent.events import (
    LoopStopped,
    PermissionRequested,
    ResponseStarted,
    SubagentFinished,
    SubagentStarted,
    ToolFinished,
)
from tui.agent.events.permission import PermissionReply


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))  # user agent files and settings come from here
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    root = tmp_path / "proj"
    root.mkdir()
    make_demo_project(root)
    return root


def first_prompt(body: dict[str, Any]) -> str:
    """The text of the first user message: a subagent's is its prompt."""
    content = body["messages"][0]["content"]
    return (
        content if isinstance(content, str) else " ".join(b.get("text", "") for b in content if b.get("type") == "text")
    )


def tool_results(body: dict[str, Any]) -> list[dict[str, Any]]:
    last = body["messages"][-1]
    return [b for b in last["content"] if isinstance(b, dict) and b.get("type") == "tool_result"]


def result_text(block: dict[str, Any]) -> str:
    content = block["content"]
    return content if isinstance(content, str) else "\n".join(b.get("text", "") for b in content)


def agent(prompt: str, **extra: Any) -> Any:
    return tool_use("Agent", {"description": prompt[:20], "prompt": prompt, **extra})


def test_parallel_agents_overlap_and_return_their_final_text(monkeypatch: pytest.MonkeyPatch, project: Path) -> None:
    both_in_flight = threading.Barrier(2, timeout=10)  # passes only if both subagents' requests are open at once

    def script(body: dict[str, Any]) -> Any:
        prompt = first_prompt(body)
        if prompt.startswith("task"):
            if len(body["messages"]) == 1:
                both_in_flight.wait()
                return reply(
                    text(f"working on {prompt}"), tool_use("Read", {"file_path": "a.py"}), stop_reason="tool_use"
                )
            return reply(text(f"{prompt} done"), stop_reason="end_turn")
        if len(body["messages"]) == 1:
            return reply(
                text("Two agents."), agent("task A", subagent_type="Explore"), agent("task B"), stop_reason="tool_use"
            )
        return reply(text("Both finished."), stop_reason="end_turn")

    with FakeAPI(script) as api:
        session, rec = make_session(monkeypatch, api.base_url, project)
        session.run_turn("go")
        session.close()
        assert api.errors == []
    bodies = [r.body for r in api.message_requests]
    assert len(bodies) == 6
    final = bodies[-1]
    results = tool_results(final)
    assert [result_text(r).split("\n")[0] for r in results] == ["task A done", "task B done"]
    assert all("total_tokens:" in result_text(r) and "duration_ms:" in result_text(r) for r in results)
    assert not any(r.get("is_error") for r in results)
    started = rec.of(SubagentStarted)
    assert sorted(e.agent_path for e in started) == ["main/explore-1", "main/general-purpose-1"]
    # Explore: read-only tools and the fast model; no Agent tool inside a subagent by default
    explore = next(b for b in bodies if first_prompt(b) == "task A")
    assert [t["name"] for t in explore["tools"]] == ["Read", "Glob", "Grep"]
    assert explore["model"] == "claude-haiku-5-5"
    general = next(b for b in bodies if first_prompt(b) == "task B")
    assert "Agent" not in [t["name"] for t in general["tools"]] and "Bash" in [t["name"] for t in general["tools"]]
    # every subagent event carries its loop path; the subagent's Read is nested under it
    reads = [e for e in rec.of(ToolFinished) if e.name == "Read"]
    assert sorted(e.loop_path for e in reads) == ["main/explore-1", "main/general-purpose-1"]
    finished = rec.of(SubagentFinished)
    assert all(not f.is_error and f.tool_uses == 1 and f.total_tokens > 0 for f in finished)
    assert rec.of(LoopStopped)[-1].loop_path == "main" and rec.of(LoopStopped)[-1].reason == "end_turn"
    gc.collect()  # a finished subagent's session (history, bus, pool) is freed: only its result stays
    assert not [o for o in gc.get_objects() if type(o).__name__ == "SubagentSession"]


def test_nesting_stops_at_the_depth_limit(monkeypatch: pytest.MonkeyPatch, project: Path) -> None:
    folder = Path.home() / ".claude" / "agents"
    folder.mkdir(parents=True)
    (folder / "nester.md").write_text(
        "---\nname: nester\ndescription: Delegates further.\ntools: Read, Agent\n---\nYou delegate.\n"
    )

    def script(body: dict[str, Any]) -> Any:
        if len(body["messages"]) == 1:
            return reply(agent(f"level {first_prompt(body)}", subagent_type="nester"), stop_reason="tool_use")
        return reply(text(f"done at {first_prompt(body)}"), stop_reason="end_turn")

    with FakeAPI(script) as api:
        session, rec = make_session(monkeypatch, api.base_url, project, max_subagent_depth=2)
        session.run_turn("start")
        session.close()
    paths = [e.agent_path for e in rec.of(SubagentStarted)]
    assert paths == ["main/nester-1", "main/nester-1/nester-1"]
    tools_by_prompt = {first_prompt(r.body): [t["name"] for t in r.body.get("tools", ())] for r in api.message_requests}
    assert tools_by_prompt["level start"] == ["Read", "Agent"]
    assert tools_by_prompt["level level start"] == ["Read"]  # depth 2: no Agent any more
    deepest = [r.body for r in api.message_requests if first_prompt(r.body) == "level level start"][-1]
    assert "No such tool available: Agent" in result_text(tool_results(deepest)[0])


def test_a_denial_inside_a_subagent_goes_back_to_it_and_names_its_loop(
    monkeypatch: pytest.MonkeyPatch, project: Path, sandbox_off: object
) -> None:
    def script(body: dict[str, Any]) -> Any:
        prompt = first_prompt(body)
        if prompt.startswith("sub"):
            if len(body["messages"]) == 1:
                return reply(tool_use("Bash", {"command": f"touch {prompt.replace(' ', '_')}"}), stop_reason="tool_use")
            return reply(text(f"{prompt}: " + result_text(tool_results(body)[0])), stop_reason="end_turn")
        if len(body["messages"]) == 1:
            return reply(agent("sub one"), agent("sub two"), stop_reason="tool_use")
        return reply(text("ok"), stop_reason="end_turn")

    with FakeAPI(script) as api:
        session, _rec = make_session(monkeypatch, api.base_url, project, interactive=True)
        asked: list[PermissionRequested] = []

        def deny(event: Any) -> None:
            if isinstance(event, PermissionRequested):
                asked.append(event)
                event.reply.set_result(PermissionReply(False, reason="not now"))

        session.bus.subscribe(deny, inline=True)
        session.run_turn("go")
        session.close()
    assert sorted(e.loop_path for e in asked) == ["main/general-purpose-1", "main/general-purpose-2"]
    results = tool_results(api.message_requests[-1].body)
    assert all("denied" in result_text(r) and "not now" in result_text(r) for r in results)
    assert not any(r.get("is_error") for r in results)  # the subagent handled the denial itself
    assert len(session.denials) == 2
    assert not (project / "sub_one").exists()


def test_esc_cancels_every_subagent(monkeypatch: pytest.MonkeyPatch, project: Path) -> None:
    def script(body: dict[str, Any]) -> Any:
        if first_prompt(body).startswith("slow"):
            return stall(after_events=2, seconds=30)
        return reply(agent("slow one"), agent("slow two"), stop_reason="tool_use")

    with FakeAPI(script) as api:
        session, rec = make_session(monkeypatch, api.base_url, project)
        streaming: set[str] = set()
        both = threading.Event()

        def watch(event: Any) -> None:
            if isinstance(event, ResponseStarted) and event.loop_path != "main":
                streaming.add(event.loop_path)
                if len(streaming) == 2:
                    both.set()

        session.bus.subscribe(watch, inline=True)
        session.submit("go")
        assert both.wait(10)  # both subagents are mid-stream
        session.cancel()
        assert session.wait(10)
        session.close()
    stops = rec.of(LoopStopped)
    assert sorted(s.loop_path for s in stops) == ["main", "main/general-purpose-1", "main/general-purpose-2"]
    assert all(s.reason == "interrupted" for s in stops)
    agents = [e for e in rec.of(ToolFinished) if e.name == "Agent"]
    assert [a.status for a in agents] == ["interrupted", "interrupted"]


def test_a_failing_subagent_is_an_error_result(monkeypatch: pytest.MonkeyPatch, project: Path) -> None:
    def script(body: dict[str, Any]) -> Any:
        if first_prompt(body) == "break":
            return http_error(400, "invalid_request_error", "bad request")
        if len(body["messages"]) == 1:
            return reply(agent("break"), stop_reason="tool_use")
        return reply(text("recovered"), stop_reason="end_turn")

    with FakeAPI(script, validate=False) as api:
        session, rec = make_session(monkeypatch, api.base_url, project)
        session.run_turn("go")
        session.close()
    result = tool_results(api.message_requests[-1].body)[0]
    assert result.get("is_error") is True and "stopped with an error (api_error)" in result_text(result)
    assert rec.of(LoopStopped)[-1].reason == "end_turn"


def _git(project: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=project, check=True, capture_output=True, text=True).stdout


def test_worktree_isolation_keeps_changes_on_a_branch(monkeypatch: pytest.MonkeyPatch, project: Path) -> None:
    _git(project, "init", "-q")
    _git(project, "-c", "user.name=t", "-c", "user.email=t@t", "add", "-A")
    _git(project, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init")

    def script(body: dict[str, Any]) -> Any:
        prompt = first_prompt(body)
        if prompt in ("write", "look"):
            if len(body["messages"]) == 1 and prompt == "write":
                return reply(tool_use("Write", {"file_path": "new.txt", "content": "hello\n"}), stop_reason="tool_use")
            return reply(text(f"{prompt} finished"), stop_reason="end_turn")
        if len(body["messages"]) == 1:
            return reply(
                agent("write", isolation="worktree"), agent("look", isolation="worktree"), stop_reason="tool_use"
            )
        return reply(text("ok"), stop_reason="end_turn")

    with FakeAPI(script) as api:
        session, rec = make_session(monkeypatch, api.base_url, project, permission_mode="acceptEdits")
        session.run_turn("go")
        session.close()
    wrote, looked = tool_results(api.message_requests[-1].body)
    assert "+hello" in result_text(wrote) and "kept on branch agent-tui/" in result_text(wrote)
    assert "no changes; the worktree was removed" in result_text(looked)
    assert not (project / "new.txt").exists()  # the main checkout is untouched
    started = {s.description: s for s in rec.of(SubagentStarted)}
    finished = {f.agent_path: f for f in rec.of(SubagentFinished)}
    branch = finished[started["write"].agent_path].worktree_branch
    assert branch and _git(project, "show", f"{branch}:new.txt") == "hello\n"
    branches = _git(project, "branch", "--format=%(refname:short)", "--list", "agent-tui/*").split()
    assert branches == [branch]  # the unchanged worktree's branch is gone
    assert not Path(started["look"].worktree or "").exists()


def test_subagent_transcripts_are_linked_from_the_parent(
    monkeypatch: pytest.MonkeyPatch, project: Path, tmp_path: Path
) -> None:
    def script(body: dict[str, Any]) -> Any:
        if first_prompt(body) == "sub":
            return reply(text("sub answer"), stop_reason="end_turn")
        if len(body["messages"]) == 1:
            return reply(agent("sub"), stop_reason="tool_use")
        return reply(text("ok"), stop_reason="end_turn")

    with FakeAPI(script) as api:
        session, _rec = make_session(monkeypatch, api.base_url, project, sessions_dir=tmp_path / "sessions")
        session.run_turn("go")
        path = session.transcript_path
        session.close()
    assert path is not None
    records = [json.loads(line) for line in path.read_text().splitlines()]
    links = [r for r in records if r["type"] == "subagent"]
    assert len(links) == 1 and links[0]["agent_path"] == "main/general-purpose-1"
    assert all(r["event"]["loop_path"] == "main" for r in records if r["type"] == "event")
    sub = Path(links[0]["transcript"])
    assert sub.parent.parent == path.parent / path.stem
    sub_records = [json.loads(line) for line in sub.read_text().splitlines()]
    assert [r["message"]["role"] for r in sub_records if r["type"] == "message"] == ["user", "assistant"]
    # resuming keeps the link: a fork copies it into the new file
    from tui.agent.options import AgentOptions
    from tui.agent.session import AgentSession

    again = AgentSession(AgentOptions(project_dir=project, sessions_dir=tmp_path / "sessions"))
    again.resume(path)
    again.fork_transcript()
    forked = [json.loads(line) for line in again.transcript_path.read_text().splitlines()]  # type: ignore[union-attr]
    again.close()
    assert [r["transcript"] for r in forked if r["type"] == "subagent"] == [str(sub)]


def test_stream_json_lines_of_a_subagent_name_the_agent_call(monkeypatch: pytest.MonkeyPatch, project: Path) -> None:
    from tui.headless.run import run_headless

    def script(body: dict[str, Any]) -> Any:
        if first_prompt(body) == "sub":
            return reply(text("sub answer"), stop_reason="end_turn")
        if len(body["messages"]) == 1:
            return reply(
                tool_use("Agent", {"description": "d", "prompt": "sub"}, id="toolu_agent1"), stop_reason="tool_use"
            )
        return reply(text("ok"), stop_reason="end_turn")

    with FakeAPI(script) as api:
        session, _ = make_session(monkeypatch, api.base_url, project, transcript=False)
        out, err = io.StringIO(), io.StringIO()
        code = run_headless(session.options, "go", "stream-json", out=out, err=err, session=session)
    assert code == 0
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    messages = [(line["type"], line["parent_tool_use_id"]) for line in lines if line["type"] in ("assistant", "user")]
    assert messages == [("assistant", None), ("assistant", "toolu_agent1"), ("user", None), ("assistant", None)]
    assert lines[-1]["type"] == "result" and lines[-1]["result"] == "ok"


def test_the_offline_model_shows_subagents_without_a_key(monkeypatch: pytest.MonkeyPatch, project: Path) -> None:
    from tests.integration.helpers import Recorder
    from tui.agent.options import AgentOptions
    from tui.agent.session import AgentSession

    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    session = AgentSession(AgentOptions(project_dir=project, offline=True, offline_delay=0, transcript=False))
    rec = Recorder()
    session.bus.subscribe(rec, inline=True)
    session.run_turn("explore this project with subagents")
    session.close()
    finished = rec.of(SubagentFinished)
    assert sorted(f.agent_path for f in finished) == ["main/explore-1", "main/explore-2"]
    assert all(not f.is_error and f.tool_uses >= 2 for f in finished)
    answer = session.turn_text()
    assert "### Find TODO markers" in answer and "### Summarize the project" in answer and "TODO" in answer


def test_the_parallel_cap_holds_further_agents_back(monkeypatch: pytest.MonkeyPatch, project: Path) -> None:
    def script(body: dict[str, Any]) -> Any:
        if first_prompt(body).startswith("job"):
            return reply(text(f"{first_prompt(body)} done"), stop_reason="end_turn")
        if len(body["messages"]) == 1:
            return reply(agent("job 1"), agent("job 2"), agent("job 3"), stop_reason="tool_use")
        return reply(text("ok"), stop_reason="end_turn")

    with FakeAPI(script) as api:
        session, rec = make_session(monkeypatch, api.base_url, project, max_parallel_subagents=1)
        session.run_turn("go")
        session.close()
    order = [type(e).__name__ for e in rec.events if isinstance(e, (SubagentStarted, SubagentFinished))]
    assert order == ["SubagentStarted", "SubagentFinished"] * 3  # one at a time
    assert [result_text(r).split("\n")[0] for r in tool_results(api.message_requests[-1].body)] == [
        "job 1 done",
        "job 2 done",
        "job 3 done",
    ]


def test_a_background_agent_returns_at_once_and_is_announced_when_done(
    monkeypatch: pytest.MonkeyPatch, project: Path
) -> None:
    release = threading.Event()

    def script(body: dict[str, Any]) -> Any:
        prompt = first_prompt(body)
        if prompt == "bg":
            assert release.wait(10)  # the subagent's request is held until the main turn has ended
            return reply(text("background report"), stop_reason="end_turn")
        if prompt == "slow bg":
            return stall(after_events=2, seconds=30)
        if len(body["messages"]) == 1 and prompt == "go":
            return reply(
                agent("bg", run_in_background=True), agent("slow bg", run_in_background=True), stop_reason="tool_use"
            )
        return reply(text("noted"), stop_reason="end_turn")

    with FakeAPI(script) as api:
        session, rec = make_session(monkeypatch, api.base_url, project)
        session.run_turn("go")  # ends while the subagents still run
        launched = tool_results(api.message_requests[-1].body)
        assert all("in the background as task" in result_text(r) for r in launched)
        tasks = {t.description: t for t in session.state.tasks.all()}
        assert tasks["bg"].running and tasks["slow bg"].running
        release.set()
        assert session.state.tasks.wait(tasks["bg"].id, timeout=10)
        assert session.state.tasks.stop(tasks["slow bg"].id)  # TaskStop ends the subagent's loop
        session.run_turn("anything new?")
        session.close()
    assert tasks["bg"].status == "completed" and tasks["slow bg"].status == "killed"
    assert Path(tasks["bg"].output_path).read_text().startswith("background report")
    last_prompt = api.message_requests[-1].body["messages"][-1]["content"]
    notes = [b["text"] for b in last_prompt if "<task-notification>" in b.get("text", "")]
    assert len(notes) == 1 and f"<task-id>{tasks['bg'].id}</task-id>" in notes[0] and "completed" in notes[0]
    stops = {e.loop_path: e.reason for e in rec.of(LoopStopped) if e.loop_path != "main"}
    assert sorted(stops.values()) == ["end_turn", "interrupted"]
