"""Whole turns through the real SDK on the offline transport, with stand-in tools."""

from __future__ import annotations

from pathlib import Path

from tests.unit.offline.conftest import CALC_PY, StandInTools, drive_turn, make_client, tool_defs

EDITED_LINE = "    # NOTE: reviewed by agent-tui offline demo - validate inputs"


def _tool_uses(message) -> list:
    return [block for block in message.content if block.type == "tool_use"]


def test_four_step_turn_edits_the_named_todo_file(project: Path, tools_runner: StandInTools) -> None:
    client, _ = make_client(project)
    replies, messages = drive_turn(client, "fix the TODO in calc.py", tools_runner)

    assert [reply.stop_reason for reply in replies] == ["tool_use", "tool_use", "tool_use", "end_turn"]
    first = _tool_uses(replies[0])
    assert [block.name for block in first] == ["Glob", "Read", "Grep"]
    assert first[1].input == {"file_path": str(project / "src" / "calc.py")}
    assert first[2].input["pattern"] == "TODO|FIXME" and first[2].input["output_mode"] == "content"
    assert "!node_modules" in first[2].input["glob"] and "!package-lock.json" in first[2].input["glob"]
    assert len({block.id for block in first}) == 3
    assert all(block.id.startswith("toolu_offline_") for block in first)

    (edit,) = _tool_uses(replies[1])
    assert edit.name == "Edit"
    assert edit.input["old_string"] == "    # TODO: validate inputs"
    assert edit.input["old_string"] in CALC_PY.split("\n")
    assert edit.input["new_string"] == EDITED_LINE
    assert (project / "src" / "calc.py").read_text() == CALC_PY.replace("    # TODO: validate inputs", EDITED_LINE)

    (bash,) = _tool_uses(replies[2])
    assert bash.name == "Bash"
    assert bash.input["command"] == "git status --short"
    assert bash.input["description"]

    summary = replies[3].content[-1].text
    assert summary.startswith("## ")
    assert "**3 files**" in summary
    assert "**2 TODO/FIXME lines** in 2 files" in summary
    assert "was **applied**" in summary
    assert "exit code 0" in summary
    assert f"```diff\n-    # TODO: validate inputs\n+{EDITED_LINE}\n```" in summary
    assert messages[-1]["role"] == "assistant"


def test_todo_file_is_read_before_it_is_edited(project: Path, tools_runner: StandInTools) -> None:
    client, _ = make_client(project)
    replies, _ = drive_turn(client, "find the TODOs and fix one", tools_runner)

    names = [[block.name for block in _tool_uses(reply)] for reply in replies]
    assert names == [["Glob", "Read", "Grep"], ["Read"], ["Edit"], ["Bash"], []]
    assert _tool_uses(replies[0])[1].input["file_path"] == str(project / "README.md")
    assert _tool_uses(replies[1])[0].input["file_path"].endswith("src/calc.py")
    assert "    # NOTE: reviewed" in (project / "src" / "calc.py").read_text()


def test_denied_edit_is_reported_and_the_turn_goes_on(project: Path, tools_runner: StandInTools) -> None:
    client, _ = make_client(project)
    replies, _ = drive_turn(client, "fix the TODO in calc.py", tools_runner, deny=frozenset({"Edit"}))

    assert [reply.stop_reason for reply in replies][-2:] == ["tool_use", "end_turn"]
    assert (project / "src" / "calc.py").read_text() == CALC_PY
    summary = replies[-1].content[-1].text
    assert "**not applied**: The user denied this tool call." in summary
    assert "The change that was proposed:" in summary and "The changed line" not in summary


def test_all_tools_failing_still_ends_with_a_summary(project: Path) -> None:
    class Broken(StandInTools):
        def run(self, name, tool_input):
            return "<tool_use_error>disk on fire</tool_use_error>", True

    client, _ = make_client(project)
    replies, _ = drive_turn(client, "look at the code", Broken(project))
    assert replies[-1].stop_reason == "end_turn"
    assert len(replies) <= 4
    assert "## Offline demo" in replies[-1].content[-1].text


def test_no_todo_writes_a_demo_file(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("print('hi')\n")
    (tmp_path / "notes.md").write_text("# Notes\n")
    client, _ = make_client(tmp_path)
    replies, _ = drive_turn(client, "fix what you can in this project", StandInTools(tmp_path))

    (write,) = _tool_uses(replies[1])
    assert write.name == "Write"
    assert write.input["file_path"] == str(tmp_path / "agent-tui-demo.md")
    content = (tmp_path / "agent-tui-demo.md").read_text()
    assert "- Files: 2" in content and ".md (1)" in content and ".py (1)" in content
    assert _tool_uses(replies[2])[0].input["command"] == "ls -la"
    assert "```markdown" in replies[-1].content[-1].text


def test_second_turn_fixes_the_next_todo(project: Path, tools_runner: StandInTools) -> None:
    client, _ = make_client(project)
    _, history = drive_turn(client, "fix the TODO in calc.py", tools_runner)
    replies, _ = drive_turn(client, "find the TODOs and fix one", tools_runner, messages=history)

    edits = [b for reply in replies for b in _tool_uses(reply) if b.name == "Edit"]
    assert [edit.input["old_string"] for edit in edits] == ["    print(calc.add(1, 2))  # FIXME remove debug print"]
    assert "FIXME" not in (project / "src" / "main.py").read_text()


def test_only_offered_tools_are_called(project: Path, tools_runner: StandInTools) -> None:
    client, _ = make_client(project)
    offered = ("Read", "Glob", "Grep")
    replies, _ = drive_turn(client, "fix the TODO in calc.py", tools_runner, tools=tool_defs(offered))
    called = {block.name for reply in replies for block in _tool_uses(reply)}
    assert called <= set(offered)
    assert replies[-1].stop_reason == "end_turn"
    assert "Edit tool is not available" in replies[-1].content[-1].text


def test_explaining_the_project_reads_the_longest_readme_not_a_pointer(
    project: Path, tools_runner: StandInTools
) -> None:
    (project / "README").write_text("See README.rst.\n")
    (project / "README.rst").write_text("Calc\n====\n\n" + "Adds numbers, carefully, with tests.\n" * 30)
    client, _ = make_client(project)
    replies, _ = drive_turn(client, "explain this project", tools_runner)
    reads = [block.input["file_path"] for reply in replies for block in _tool_uses(reply) if block.name == "Read"]
    assert reads and reads[0] == str(project / "README.rst")
