"""The cost ledger without the wire: cause texts, the lookback cause, memory framing, bad settings, import order."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tui.agent.cost.cache_breaks import describe_system_change, describe_tools_change
from tui.agent.cost.cost import CostLedger, RequestCost
from tui.config.memory import MemoryFile, memory_layout, memory_system_text
from tui.config.settings import load_settings

REPO = Path(__file__).resolve().parents[3]


def tool(name: str) -> dict:
    return {"name": name, "description": "d", "input_schema": {"type": "object"}}


def test_tool_changes_are_grouped_by_mcp_server_and_named_otherwise() -> None:
    old = [tool("Read"), tool("WebSearch")]
    new = [tool("Read"), *(tool(f"mcp__git__{n}") for n in ("status", "log", "diff")), tool("mcp__db__query")]
    assert describe_tools_change(old, new) == "+3 mcp__git tools, +1 mcp__db tool, −WebSearch"
    assert describe_tools_change(old, [old[1], old[0]]) == "tool order changed"
    changed = [tool("Read"), {**tool("WebSearch"), "description": "other"}]
    assert describe_tools_change(old, changed) == "WebSearch's definition changed"


def test_system_changes_say_which_block() -> None:
    rules = {"type": "text", "text": "You are agent-tui.", "cache_control": {"type": "ephemeral"}}
    env = {"type": "text", "text": "# Environment\nToday's date: 2026-12-03"}
    memory = {"type": "text", "text": '# Memory files\n<memory_file path="AGENTS.md">\nx\n</memory_file>'}
    edited = {**memory, "text": memory["text"].replace("x", "y")}
    assert describe_system_change([rules, memory, env], [rules, edited, env]) == "memory files edited"
    assert describe_system_change([rules, env], [rules, memory, env]) == "memory files added"
    later = {**env, "text": env["text"].replace("03", "04")}
    assert describe_system_change([rules, env], [rules, later]) == "the environment block changed (date, git branch)"


def _body(messages: list[dict]) -> dict:
    return {
        "model": "claude-sonnet-5-5",
        "system": [{"type": "text", "text": "rules " * 400}],
        "tools": [tool("Read")],
        "messages": messages,
    }


def test_a_miss_with_the_prefix_intact_and_many_new_blocks_is_named_lookback() -> None:
    ledger = CostLedger(clock=lambda: 100.0)
    first = [{"role": "user", "content": [{"type": "text", "text": "go " * 50}]}]
    ledger.record(
        _body(first),
        {"input_tokens": 0, "cache_creation_input_tokens": 700, "cache_read_input_tokens": 0, "output_tokens": 10},
        price_model="claude-sonnet-5-5",
    )
    reply = {"role": "assistant", "content": [{"type": "text", "text": f"step {n}"} for n in range(24)]}
    later = [*first, reply, {"role": "user", "content": [{"type": "text", "text": "more"}]}]
    entry = ledger.record(
        _body(later),
        {"input_tokens": 0, "cache_creation_input_tokens": 800, "cache_read_input_tokens": 0, "output_tokens": 10},
        price_model="claude-sonnet-5-5",
    )
    assert entry.cache_miss is not None and entry.cache_miss["cause"] == "lookback"
    assert entry.cache_miss["text"].startswith("25 blocks since the last cache write")


def test_entries_survive_a_round_trip_through_json_and_the_turn_total() -> None:
    ledger = CostLedger()
    ledger.begin_turn(3)
    entry = ledger.record(
        _body([{"role": "user", "content": "hi"}]),
        {"input_tokens": 500, "output_tokens": 20},
        price_model="claude-sonnet-5-5",
    )
    again = RequestCost.from_dict(entry.to_dict())
    assert again.to_dict() == entry.to_dict() and again.turn == 3
    assert ledger.turn_total(3) == pytest.approx(entry.total_usd) and ledger.turn_total(4, -1.0) == -1.0
    resumed = CostLedger()
    resumed.restore([entry.to_dict(), {"broken": True}])
    assert len(resumed.entries) == 1 and resumed.turn == 3


def test_each_memory_file_is_found_where_the_system_block_frames_it() -> None:
    files = [MemoryFile(Path("/p/AGENTS.md"), "rules\n"), MemoryFile(Path("/p/style.md"), "tabs", Path("/p/AGENTS.md"))]
    block = memory_system_text(files)
    for memory, framed, start in memory_layout(files):
        assert block[start : start + len(framed)] == framed
        assert framed.startswith(f'<memory_file path="{memory.path}"') and memory.text.strip() in framed


def test_a_bad_compaction_setting_is_one_sentence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    path = tmp_path / "proj" / ".agent-tui" / "settings.toml"
    path.parent.mkdir(parents=True)
    path.write_text('compaction = "sometimes"\n')
    loaded = load_settings(tmp_path / "proj")
    assert loaded.problems == [f"{path}:1: key `compaction`: expected one of auto, ask, off, got `sometimes`; ignored."]
    assert loaded.settings.compaction == "auto"
    path.write_text('compaction = "ask"\n')
    assert load_settings(tmp_path / "proj").settings.compaction == "ask"


@pytest.mark.parametrize("module", ["tui.agent.events.cost", "tui.agent.context.pins", "tui.agent.cost.report"])
def test_the_cost_modules_import_first_without_a_cycle(module: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", f"import {module}; from tui.agent.events import CacheMissed"],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr


def test_a_finished_subagent_leaves_its_entries_but_not_its_messages() -> None:
    ledger = CostLedger()
    usage = {"input_tokens": 0, "cache_creation_input_tokens": 2000, "cache_read_input_tokens": 0, "output_tokens": 5}
    body = _body([{"role": "user", "content": "look around " * 50}])
    ledger.record(body, usage, price_model="claude-sonnet-5-5", loop_path="main/explore-1")
    ledger.end_loop("main/explore-1")
    again = ledger.record(body, usage, price_model="claude-sonnet-5-5", loop_path="main/explore-1")
    assert again.cache_miss is None and len(ledger.entries) == 2  # nothing left to compare with, entries kept
