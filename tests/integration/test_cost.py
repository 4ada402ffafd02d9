"""Cost per request and per part, and named cache breaks, on the wire: the real SDK against the fake API's cache."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from tests.fakeapi import FakeAPI, reply, text, tool_use
from tests.fakeapi.demo_project import make_demo_project
from tests.integration.helpers import make_session
from tests.integration.mcp_helpers import kitchen
from tui.agent.cost.cost import PARTS, ZONES
from tui.agent.cost.pricing import usage_cost
from tui.agent.events import CacheMissed, RequestCosted, ResponseFinished
from tui.agent.history.rewind import rewind, rewind_entries

LONG = " and then some more words to make this message long enough to matter" * 4


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = make_demo_project(tmp_path / "proj")
    (root / "AGENTS.md").write_text("# House rules\n" + "- Prefer small functions with clear names.\n" * 60)
    return root


def answers(n: int) -> list[Any]:
    return [reply(f"answer {i}{LONG}") for i in range(n)]


def misses(rec: Any) -> list[CacheMissed]:
    return rec.of(CacheMissed)


def test_attribution_adds_up_to_the_usage_the_api_reported(monkeypatch: pytest.MonkeyPatch, project: Path) -> None:
    script = [
        reply(text("Reading."), tool_use("Read", {"file_path": str(project / "a.py")}), stop_reason="tool_use"),
        reply("a.py greets."),
        reply("Second turn."),
    ]
    with FakeAPI(script) as api:
        session, rec = make_session(monkeypatch, api.base_url, project, transcript=False)
        session.run_turn("what does a.py do?")
        session.run_turn("and now?")
        assert api.errors == []
    finished, costed = rec.of(ResponseFinished), rec.of(RequestCosted)
    assert len(finished) == len(costed) == 3
    for response, event in zip(finished, costed):
        cost, usage = event.cost, response.usage
        reported = {
            "input": usage["input_tokens"],
            "cache_write": usage["cache_creation_input_tokens"],
            "cache_read": usage["cache_read_input_tokens"],
            "output": usage["output_tokens"],
        }
        for zone in ZONES:  # every token the API reported lands in exactly one part
            assert sum(part.get(zone, 0.0) for part in cost["parts"].values()) == pytest.approx(
                reported[zone], abs=1e-6
            )
        assert sum(cost["part_usd"].values()) == pytest.approx(usage_cost(usage, "claude-sonnet-5-5"), abs=1e-12)
        assert cost["total_usd"] == pytest.approx(response.cost_usd, abs=1e-12)
        assert set(cost["parts"]) == set(PARTS)
    first, second, third = (e.cost["part_usd"] for e in costed)
    assert first["memory"] > 0 and first["tools"] > 0 and first["system"] > 0 and first["tool_results"] == 0
    assert second["tool_results"] > 0  # this turn's Read result
    assert third["tool_results"] == 0 and third["history"] > 0  # an earlier turn's result is history now
    assert [e.cost["turn"] for e in costed] == [1, 1, 2]


def test_print_json_cost_breakdown_adds_up_to_total_cost_usd(monkeypatch: pytest.MonkeyPatch, project: Path) -> None:
    from tui.agent.options import AgentOptions
    from tui.headless.run import run_headless

    def script(body: dict[str, Any]) -> Any:
        first = body["messages"][0]["content"][0]["text"]
        if first.startswith("look around"):  # the subagent
            return reply("The project has three files.")
        if len(body["messages"]) == 1:
            return reply(
                tool_use("Agent", {"description": "look around", "prompt": "look around the project"}),
                stop_reason="tool_use",
            )
        return reply("Done: three files.")

    with FakeAPI(script) as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
        out, err = io.StringIO(), io.StringIO()
        code = run_headless(
            AgentOptions(project_dir=project, model="claude-sonnet-5-5", transcript=False),
            "survey the project",
            "json",
            out=out,
            err=err,
        )
    assert code == 0, err.getvalue()
    result = json.loads(out.getvalue())
    breakdown = result["cost_breakdown"]
    total = result["total_cost_usd"]
    assert total > 0 and len(api.message_requests) == 3
    assert set(breakdown["by_part"]) == {"system", "tools", "memory", "history", "tool_results", "output"}
    assert sum(breakdown["by_part"].values()) == pytest.approx(total, abs=1e-5)
    assert sum(t["cost_usd"] for t in breakdown["by_turn"]) == pytest.approx(total, abs=1e-5)
    assert sum(m["cost_usd"] for m in breakdown["by_model"].values()) == pytest.approx(total, abs=1e-5)
    agents = breakdown["by_agent"]
    assert set(agents) == {"main", "main/general-purpose-1"} and agents["main"]["requests"] == 2
    assert sum(a["cost_usd"] for a in agents.values()) == pytest.approx(total, abs=1e-5)
    assert breakdown["by_model"]["claude-sonnet-5-5"]["priced"] is True and breakdown["unpriced_models"] == []


def test_a_model_without_a_price_says_so(monkeypatch: pytest.MonkeyPatch, project: Path) -> None:
    with FakeAPI([reply("hi")]) as api:
        session, _ = make_session(monkeypatch, api.base_url, project, transcript=False, model="claude-nova-9")
        session.run_turn("hello")
    from tui.agent.cost.report import cost_breakdown

    breakdown = cost_breakdown(session.costs.snapshot())
    assert breakdown["unpriced_models"] == ["claude-nova-9"]
    assert breakdown["by_model"]["claude-nova-9"]["priced"] is False
    assert "no price listed for claude-nova-9" in breakdown["unpriced_note"]


def test_a_steady_conversation_has_no_cache_break(monkeypatch: pytest.MonkeyPatch, project: Path) -> None:
    with FakeAPI(answers(4)) as api:
        session, rec = make_session(monkeypatch, api.base_url, project, transcript=False)
        for n in range(4):
            session.run_turn(f"question {n}{LONG}")
    assert misses(rec) == [] and rec.of(RequestCosted)[-1].cost["tokens"]["cache_read"] > 0


def test_cache_break_named_tools_changed_when_an_mcp_server_connects(
    monkeypatch: pytest.MonkeyPatch, project: Path
) -> None:
    with FakeAPI(answers(2)) as api:
        session, rec = make_session(
            monkeypatch,
            api.base_url,
            project,
            interactive=True,
            transcript=False,
            mcp_servers=[kitchen("git", "--slow-start", "1")],
            allowed_tools=["mcp__git"],
        )
        session.mcp.start()
        session.run_turn(f"hello{LONG}")  # names no server: goes without its tools
        session.run_turn(f"now use git{LONG}")  # waits for the server: its tools join tools[]
        session.close()
    added = [t["name"] for t in api.message_requests[1].body["tools"] if t["name"].startswith("mcp__git__")]
    [miss] = misses(rec)
    # the server's tools, and the resource tools that come with a server that has resources
    assert miss.cause == "tools"
    assert miss.text == f"tools changed (+{len(added)} mcp__git tools, +ListMcpResources, +ReadMcpResource)"
    assert miss.lost_tokens > 1000 and miss.read_tokens < miss.expected_tokens  # the old tools' prefix still reads


def test_cache_break_named_system_changed_when_a_memory_file_is_edited(
    monkeypatch: pytest.MonkeyPatch, project: Path
) -> None:
    with FakeAPI(answers(2)) as api:
        session, rec = make_session(monkeypatch, api.base_url, project, transcript=False)
        session.run_turn(f"first{LONG}")
        (project / "AGENTS.md").write_text("# House rules\n" + "- Prefer tabs.\n" * 60)
        session.reload_memory()  # as `#text` and /init do
        session.run_turn(f"second{LONG}")
    [miss] = misses(rec)
    assert (miss.cause, miss.text) == ("system", "system prompt changed (memory files edited)")
    assert 0 < miss.read_tokens < miss.expected_tokens  # tools and the rules before the memory block still read


def test_cache_break_named_earlier_message_changed_after_a_compaction(
    monkeypatch: pytest.MonkeyPatch, project: Path
) -> None:
    script = [*answers(4), reply("SUMMARY: four questions answered."), reply("after")]
    with FakeAPI(script) as api:
        session, rec = make_session(monkeypatch, api.base_url, project, transcript=False)
        for n in range(4):
            session.run_turn(f"question {n}{LONG}")
        assert session.compact().ok
        session.run_turn(f"next{LONG}")
    [miss] = misses(rec)
    assert miss.cause == "messages"
    assert miss.text.startswith("an earlier message changed (message 1 of 7") and "history compacted" in miss.text
    compaction = [e.cost for e in rec.of(RequestCosted) if e.cost["kind"] == "compaction"]
    assert len(compaction) == 1 and compaction[0]["total_usd"] > 0  # the summary request is priced too


def test_cache_break_named_earlier_message_changed_after_a_rewind(
    monkeypatch: pytest.MonkeyPatch, project: Path
) -> None:
    with FakeAPI(answers(3)) as api:
        session, rec = make_session(monkeypatch, api.base_url, project, transcript=False)
        session.run_turn(f"one{LONG}")
        session.run_turn(f"two{LONG}")
        entry = next(e for e in rewind_entries(session) if e.prompt.startswith("two"))
        rewind(session, entry, "conversation")
        session.run_turn(f"three{LONG}")
    [miss] = misses(rec)
    assert miss.cause == "messages" and miss.text == "an earlier message changed (message 3 of 3, history rewound)"


def test_cache_break_named_entry_older_than_its_lifetime(monkeypatch: pytest.MonkeyPatch, project: Path) -> None:
    now = [1000.0]
    with FakeAPI(answers(2), clock=lambda: now[0]) as api:
        session, rec = make_session(monkeypatch, api.base_url, project, transcript=False)
        session.costs.clock = lambda: now[0]
        session.run_turn(f"first{LONG}")
        now[0] += 6 * 60 + 12  # the user was away for longer than the 5-minute lifetime
        session.run_turn(f"second{LONG}")
    [miss] = misses(rec)
    assert miss.cause == "ttl" and miss.read_tokens == 0
    assert miss.text == "the cache entry outlived its 5-minute lifetime (6m 12s since the previous request)"


def test_cache_break_named_model_changed(monkeypatch: pytest.MonkeyPatch, project: Path) -> None:
    with FakeAPI(answers(2)) as api:
        session, rec = make_session(monkeypatch, api.base_url, project, transcript=False)
        session.run_turn(f"first{LONG}")
        session.options.model = "claude-opus-5-5"
        session.run_turn(f"second{LONG}")
    [miss] = misses(rec)
    assert (miss.cause, miss.text) == ("model", "model changed (claude-sonnet-5-5 → claude-opus-5-5)")
    by_model = {e.cost["model"] for e in rec.of(RequestCosted)}
    assert by_model == {"claude-sonnet-5-5", "claude-opus-5-5"}


def test_print_counts_a_compaction_but_never_prints_its_summary_as_a_reply(
    monkeypatch: pytest.MonkeyPatch, project: Path
) -> None:
    from tests.integration.test_compaction import synthetic_history
    from tui.agent.options import AgentOptions
    from tui.agent.session import AgentSession
    from tui.headless.run import run_headless

    with FakeAPI([reply("SUMMARY: the user read a.py twelve times."), reply("carrying on")]) as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
        options = AgentOptions(
            project_dir=project, model="claude-sonnet-5-5", transcript=False, max_tokens=300, compaction="ask"
        )  # -p cannot ask: it compacts
        session = AgentSession(options)
        session.messages = synthetic_history(12)
        used, _ = session.context.current()
        options.context_window = used + 700
        out, err = io.StringIO(), io.StringIO()
        code = run_headless(options, "next step", "stream-json", out=out, err=err, session=session)
    assert code == 0, err.getvalue()
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assistant = [line["message"]["content"][0]["text"] for line in lines if line["type"] == "assistant"]
    assert assistant == ["carrying on"]
    assert [line["iteration"] for line in lines if line["type"] == "request_sent"] == [0, 1]
    breakdown = lines[-1]["cost_breakdown"]
    assert set(breakdown["by_agent"]) == {"main", "main (compaction)"}
    assert sum(breakdown["by_part"].values()) == pytest.approx(lines[-1]["total_cost_usd"], abs=1e-5)
    assert "context compaction: Compacted" in err.getvalue()
