"""The offline demo says what it cannot do, never proposes an edit that breaks a file, and answers queued messages."""

from __future__ import annotations

import ast
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.unit.offline.conftest import StandInTools, tool_defs
from tui.agent.offline import plan_reply
from tui.agent.offline.conversation import QUEUED_MARK
from tui.agent.offline.limits import parses
from tui.agent.options import AgentOptions
from tui.agent.session import AgentSession
from tui.tools.base import ToolContext, ToolResult
from tui.tools.glob_tool import GlobTool
from tui.tools.registry import default_tools


def _body(messages: list[dict[str, Any]]) -> dict[str, Any]:
    return {"model": "offline-demo", "max_tokens": 1000, "messages": messages, "tools": tool_defs()}


def _drive(project: Path, prompt: str, steer: dict[int, list[str]] | None = None) -> list[tuple[list[Any], str]]:
    """A loop over plan_reply with stand-in tools; `steer[i]` are texts added beside the results of reply i."""
    runner = StandInTools(project)
    messages: list[dict[str, Any]] = [{"role": "user", "content": prompt}]
    replies = []
    for index in range(20):
        blocks, stop = plan_reply(_body(messages), project)
        replies.append((blocks, stop))
        messages.append({"role": "assistant", "content": blocks})
        if stop != "tool_use":
            break
        results: list[dict[str, Any]] = []
        for block in blocks:
            if block["type"] == "tool_use":
                text, is_error = runner.run(block["name"], block["input"])
                results.append(
                    {"type": "tool_result", "tool_use_id": block["id"], "content": text, "is_error": is_error}
                )
        results += [{"type": "text", "text": text} for text in (steer or {}).get(index, [])]
        messages.append({"role": "user", "content": results})
    return replies


def _calls(replies: list[tuple[list[Any], str]]) -> list[dict[str, Any]]:
    return [block for blocks, _ in replies for block in blocks if block["type"] == "tool_use"]


def _text(replies: list[tuple[list[Any], str]]) -> str:
    return "\n".join(block["text"] for blocks, _ in replies for block in blocks if block["type"] == "text")


@pytest.mark.parametrize(
    "prompt", ["write fib.py", "please update the README", "can you add a test for calc", "implement a parser"]
)
def test_a_change_the_demo_cannot_make_gets_an_honest_answer(project: Path, prompt: str) -> None:
    replies = _drive(project, prompt)
    assert len(replies) == 1 and replies[0][1] == "end_turn" and not _calls(replies)
    said = _text(replies)
    assert "offline demo model" in said and "can't" in said
    assert "ANTHROPIC_API_KEY" in said and "/login" in said
    assert prompt in said


@pytest.mark.parametrize("prompt", ["find the TODOs and fix one", "fix the code", "fix what you can in this project"])
def test_the_change_the_demo_can_make_still_runs(project: Path, prompt: str) -> None:
    edits = [c for c in _calls(_drive(project, prompt)) if c["name"] == "Edit"]
    assert len(edits) == 1 and "NOTE: reviewed" in edits[0]["input"]["new_string"]


TEST_DATA = '''"""Tests of the marker finder."""

SAMPLE = """
# TODO: this marker is test data, inside a string
"""
TODO = "a name, not a comment"


def test_marker():
    assert "TODO" in SAMPLE  # a comment that holds no marker
'''


def test_a_todo_in_a_string_or_a_name_is_never_edited(project: Path) -> None:
    for path in (project / "src").iterdir():
        path.unlink()
    (project / "tests").mkdir()
    (project / "tests" / "test_markers.py").write_text(TEST_DATA)
    (project / "data.json").write_text('{"note": "TODO: not a comment"}\n')
    replies = _drive(project, "find the TODOs and fix one")
    assert not [c for c in _calls(replies) if c["name"] == "Edit"]
    assert (project / "tests" / "test_markers.py").read_text() == TEST_DATA
    assert "No TODO comment can be rewritten" in _text(replies)


def test_the_edit_proposed_keeps_every_file_parsing(project: Path) -> None:
    (project / "tests").mkdir()
    (project / "tests" / "test_markers.py").write_text(TEST_DATA)
    _drive(project, "find the TODOs and fix one")
    for path in project.rglob("*.py"):
        ast.parse(path.read_text())  # raises if the demo broke one
    assert "NOTE: reviewed" in (project / "src" / "calc.py").read_text()


def test_parses_knows_python_json_and_toml() -> None:
    assert parses("a.py", "x = 1\n") and not parses("a.py", 'NOTE: reviewed by agent-tui offline demo = "x"\n')
    assert parses("a.json", "{}") and not parses("a.json", "{")
    assert parses("a.toml", "a = 1") and not parses("a.toml", "a = ")
    assert parses("a.txt", "anything (")


def test_each_message_queued_while_it_works_gets_its_answer(project: Path) -> None:
    queued = ["list the python files", "where is add defined"]
    replies = _drive(project, "find the TODOs", steer={0: queued})
    assert replies[-1][1] == "end_turn"
    said = _text(replies)
    assert said.count(QUEUED_MARK) == 2
    first, second = said.split(QUEUED_MARK)[1:]
    assert "list the python files" in first and "src/calc.py" in first and "src/main.py" in first
    assert "where is add defined" in second and "src/calc.py" in second


class _HeldGlob(GlobTool):
    """Glob that waits until the test has queued its message: the message arrives while the turn works."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.go_on = threading.Event()

    def run(self, tool_input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        self.started.set()
        assert self.go_on.wait(30)
        return super().run(tool_input, ctx)


def test_a_session_answers_a_message_queued_during_its_turn(project: Path, tmp_path: Path) -> None:
    options = AgentOptions(
        offline=True, offline_delay=0, project_dir=project, transcript=False, sessions_dir=tmp_path / "s"
    )
    glob = _HeldGlob()
    session = AgentSession(options, tools=[glob if t.name == "Glob" else t for t in default_tools()])
    session.submit("find the TODOs")
    assert glob.started.wait(30)
    session.inbox.put("list the python files")  # typed while the turn works
    glob.go_on.set()
    assert session.wait(60)
    answers = [
        block["text"]
        for message in session.messages
        if message["role"] == "assistant"
        for block in message["content"]
        if block["type"] == "text"
    ]
    joined = "\n".join(answers)
    assert f"{QUEUED_MARK} “list the python files”" in joined
    assert "src/calc.py" in joined.split(QUEUED_MARK)[1]
