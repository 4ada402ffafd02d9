"""plan_reply alone: decisions from the messages and the project, no HTTP."""

from __future__ import annotations

from pathlib import Path

from tests.unit.offline.conftest import tool_defs
from tui.agent.offline import plan_reply
from tui.agent.offline.conversation import parse_grep_hits, parse_read_lines
from tui.agent.offline.facts import rewrite_todo_line


def _body(messages, names=("Read", "Write", "Edit", "Bash", "Glob", "Grep", "TodoWrite"), **extra):
    return {
        "model": "offline-demo",
        "max_tokens": 1000,
        "messages": messages,
        "tools": tool_defs(tuple(names)),
        **extra,
    }


def _uses(blocks):
    return [block for block in blocks if block["type"] == "tool_use"]


def test_greetings_get_a_text_only_answer(project: Path) -> None:
    for prompt in ("hello", "hi!", "what can you do?"):
        blocks, stop = plan_reply(_body([{"role": "user", "content": prompt}]), project)
        assert stop == "end_turn"
        assert [b["type"] for b in blocks] == ["text"]
        assert "offline demo model" in blocks[0]["text"]
        assert "find the TODOs and fix one" in blocks[0]["text"]


def test_first_step_is_text_then_three_parallel_calls(project: Path) -> None:
    prompt = [{"role": "user", "content": [{"type": "text", "text": "look at main.py"}]}]
    blocks, stop = plan_reply(_body(prompt), project)
    assert stop == "tool_use"
    assert blocks[0]["type"] == "text" and blocks[0]["text"].startswith("I'll look at the project:")
    assert [b["name"] for b in _uses(blocks)] == ["Glob", "Read", "Grep"]
    assert _uses(blocks)[1]["input"]["file_path"] == str(project / "src" / "main.py")


def test_same_conversation_gives_the_same_answer(project: Path) -> None:
    body = _body([{"role": "user", "content": "find the TODOs"}])
    assert plan_reply(body, project) == plan_reply(body, project)


def test_only_offered_tools_and_bash_search_fallback(project: Path) -> None:
    body = _body([{"role": "user", "content": "find the TODOs"}], names=("Read", "Bash"))
    blocks, _ = plan_reply(body, project)
    uses = _uses(blocks)
    assert [b["name"] for b in uses] == ["Read", "Bash"]
    assert "TODO|FIXME" in uses[1]["input"]["command"]
    blocks, stop = plan_reply(_body([{"role": "user", "content": "fix code"}], names=()), project)
    assert stop == "end_turn" and not _uses(blocks)


def test_thinking_block_comes_first_with_a_signature(project: Path) -> None:
    body = _body(
        [{"role": "user", "content": "find the TODOs"}], thinking={"type": "adaptive", "display": "summarized"}
    )
    blocks, _ = plan_reply(body, project)
    assert blocks[0]["type"] == "thinking" and blocks[0]["thinking"]
    assert blocks[0]["signature"].startswith("offline-")
    body["thinking"]["display"] = "omitted"
    assert plan_reply(body, project)[0][0]["thinking"] == ""


def test_a_long_turn_is_ended(project: Path) -> None:
    messages = [{"role": "user", "content": "fix the code"}]
    for n in range(6):
        messages.append(
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": f"t{n}", "name": "Glob", "input": {"pattern": f"{n}"}}],
            }
        )
        messages.append(
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{n}", "content": "a.py"}]}
        )
    blocks, stop = plan_reply(_body(messages), project)
    assert stop == "end_turn" and not _uses(blocks)


def test_edit_of_a_repeated_line_adds_context_until_unique(tmp_path: Path) -> None:
    source = "def a():\n    # TODO\n    return 1\n\ndef b():\n    # TODO\n    return 2\n"
    (tmp_path / "m.py").write_text(source)
    read = "\n".join(f"{n}\t{line}" for n, line in enumerate(source.split("\n")[:-1], 1))
    messages = [
        {"role": "user", "content": "fix the TODO in m.py"},
        {
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": "r", "name": "Read", "input": {"file_path": str(tmp_path / "m.py")}},
                {"type": "tool_use", "id": "g", "name": "Grep", "input": {"pattern": "TODO|FIXME"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "r", "content": read},
                {"type": "tool_result", "tool_use_id": "g", "content": "m.py:6:    # TODO\nm.py:2:    # TODO"},
            ],
        },
    ]
    (edit,) = _uses(plan_reply(_body(messages), tmp_path)[0])
    old = edit["input"]["old_string"]
    assert source.count(old) == 1 and old.startswith("    # TODO\n")
    assert edit["input"]["new_string"].split("\n")[0] == "    # NOTE: reviewed by agent-tui offline demo"


def test_result_parsers() -> None:
    assert parse_read_lines("     1\tdef f():\n     2\t    # TODO: x\n") == {1: "def f():", 2: "    # TODO: x"}
    hits = parse_grep_hits("src/a.py:12:  // FIXME(me): y\nsrc/a.py-13-context\nb.md:3:no marker")
    assert [(h.path, h.line, h.text) for h in hits] == [("src/a.py", 12, "  // FIXME(me): y")]
    assert rewrite_todo_line("\t/* TODO */") == "\t/* NOTE: reviewed by agent-tui offline demo - */"
    assert rewrite_todo_line("  x = 1  # FIXME: later") == (
        "  x = 1  # NOTE: reviewed by agent-tui offline demo - later"
    )


def test_a_todo_in_a_comment_wins_over_one_in_a_string(tmp_path: Path) -> None:
    (tmp_path / "s.py").write_text('PATTERN = "# TODO: not a comment"\n')
    (tmp_path / "t.py").write_text("x = 1  # TODO: real\n")
    read = "1\tx = 1  # TODO: real"
    messages = [
        {"role": "user", "content": "fix a TODO"},
        {
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": "r", "name": "Read", "input": {"file_path": str(tmp_path / "t.py")}},
                {"type": "tool_use", "id": "g", "name": "Grep", "input": {"pattern": "TODO|FIXME"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "r", "content": read},
                {
                    "type": "tool_result",
                    "tool_use_id": "g",
                    "content": 's.py:1:PATTERN = "# TODO: not a comment"\nt.py:1:x = 1  # TODO: real',
                },
            ],
        },
    ]
    (edit,) = _uses(plan_reply(_body(messages), tmp_path)[0])
    assert edit["input"]["old_string"] == "x = 1  # TODO: real"


def test_asked_for_subagents_it_delegates_to_parallel_explore_agents(project: Path) -> None:
    names = ("Read", "Glob", "Grep", "Agent")
    prompt = {"role": "user", "content": "explore this project with subagents"}
    blocks, stop = plan_reply(_body([prompt], names), project)
    calls = _uses(blocks)
    assert stop == "tool_use" and [c["name"] for c in calls] == ["Agent", "Agent"]
    assert {c["input"]["subagent_type"] for c in calls} == {"Explore"}
    results = {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": calls[0]["id"],
                "content": [{"type": "text", "text": "## Found\n1 TODO"}, {"type": "text", "text": "agentId: x"}],
            },
            {"type": "tool_result", "tool_use_id": calls[1]["id"], "content": "bad", "is_error": True},
        ],
    }
    blocks, stop = plan_reply(_body([prompt, {"role": "assistant", "content": blocks}, results], names), project)
    assert stop == "end_turn"
    assert "### Find TODO markers\n\n**Found**\n1 TODO" in blocks[-1]["text"] and "agentId" not in blocks[-1]["text"]
    assert "### Summarize the project (failed)\n\nbad" in blocks[-1]["text"]
    # without the Agent tool (inside a subagent, say) the same words get an ordinary look around
    blocks, _ = plan_reply(_body([prompt]), project)
    assert "Agent" not in [c["name"] for c in _uses(blocks)]
