"""Expanding `/name args`: Claude Code's argument rules, `!` lines through trust and the Bash verdict."""

from __future__ import annotations

from pathlib import Path

import pytest

from tui.agent.options import AgentOptions
from tui.agent.prompt.catalog import command_turn
from tui.agent.prompt.pipeline import prepare_prompt
from tui.agent.session import AgentSession
from tui.hooks.expand import substitute_arguments

from .helpers import trust, user_claude, write  # noqa: F401 - fixture


@pytest.mark.parametrize(
    "body, args, expected",
    [
        ("Fix $ARGUMENTS now", "issue 12", "Fix issue 12 now"),
        ("first=$0 second=$1 third=$2.", 'a "b c"', "first=a second=b c third=."),
        ("$ARGUMENTS[1] of $ARGUMENTS[0]", "x y", "y of x"),
        ("no placeholder", "some args", "no placeholder\n\nARGUMENTS: some args"),
        ("no placeholder", "", "no placeholder"),
        (r"price \$1 for $0", "apple", "price $1 for apple"),
        ("$10 items", "a", " items"),
    ],
)
def test_arguments_follow_claude_code(body, args, expected):
    assert substitute_arguments(body, args) == expected


def test_named_arguments_from_the_arguments_list():
    assert (
        substitute_arguments("deploy $target as $mode ($targets)", "prod fast", ("target", "mode"))
        == "deploy prod as fast ($targets)"
    )


def _session(project: Path, **opts) -> AgentSession:
    return AgentSession(AgentOptions(project_dir=project, transcript=False, **opts))


@pytest.fixture
def project(tmp_path: Path, user_claude: Path) -> Path:
    project = tmp_path / "proj"
    write(project / "notes.txt", "remember the milk\n")
    write(
        project / ".claude/commands/status.md",
        "---\ndescription: show status\n---\nBranch info: !`echo on-main`\nNotes: @notes.txt\nFor $0.\n",
    )
    write(
        project / ".claude/commands/touch.md",
        "---\ndescription: make a file\nallowed-tools: Bash(touch:*)\n---\nMade: !`touch made.txt && echo done`\n",
    )
    write(project / ".claude/commands/nogrant.md", "---\ndescription: x\n---\nMade: !`touch other.txt`\n")
    write(project / ".claude/commands/fails.md", "---\ndescription: x\n---\n!`ls no-such-file`\n")
    return project


def test_untrusted_folder_refuses_project_shell_lines(project):
    prepared = prepare_prompt(_session(project), "/status me")
    assert prepared.prompt == "" and prepared.refusal is not None
    assert "/status" in prepared.refusal and "not trusted" in prepared.refusal
    assert str(project / ".claude/commands/status.md") in prepared.refusal


def test_trusted_folder_runs_allowed_lines_and_attaches_files(project):
    trust(project)
    prepared = prepare_prompt(_session(project), "/status me")
    assert prepared.refusal is None
    assert prepared.prompt.startswith("Branch info: on-main\nNotes: @notes.txt\nFor me.")
    assert '<file path="notes.txt">\nremember the milk\n</file>' in prepared.prompt


def test_allowed_tools_let_a_line_run_and_nothing_else(project):
    trust(project)
    session = _session(project)
    made = prepare_prompt(session, "/touch")
    assert made.refusal is None and made.prompt == "Made: done\n" and (project / "made.txt").exists()
    refused = prepare_prompt(session, "/nogrant")
    assert refused.refusal is not None and "`touch other.txt` is not allowed" in refused.refusal
    assert "allowed-tools" in refused.refusal and not (project / "other.txt").exists()


def test_a_deny_rule_beats_allowed_tools(project):
    trust(project)
    write(project / ".claude/settings.json", '{"permissions": {"deny": ["Bash(touch:*)"]}}')
    refused = prepare_prompt(_session(project), "/touch")
    assert refused.refusal is not None and not (project / "made.txt").exists()


def test_a_failing_line_refuses_with_its_output(project):
    trust(project)
    refused = prepare_prompt(_session(project), "/fails")
    assert refused.refusal is not None and "failed" in refused.refusal and "no-such-file" in refused.refusal


def test_user_commands_run_shell_lines_in_an_untrusted_folder(project, user_claude):
    write(user_claude / "commands/where.md", "---\ndescription: where\n---\nHere: !`pwd`\n")
    prepared = prepare_prompt(_session(project), "/where")
    assert prepared.refusal is None and prepared.prompt == f"Here: {project}\n"


def test_unknown_names_and_paths_stay_plain_prompts(project):
    session = _session(project)
    assert prepare_prompt(session, "/nothing here").prompt == "/nothing here"
    assert prepare_prompt(session, "/usr/bin/env is a path").prompt == "/usr/bin/env is a path"


def test_command_turn_grants_allowed_tools_and_model_for_its_turn_only(project):
    trust(project)
    write(
        project / ".claude/commands/fast.md",
        "---\ndescription: x\nallowed-tools: Bash(make test:*)\nmodel: claude-haiku-4-5\n---\nGo\n",
    )
    session = _session(project)
    command = session.catalog.get("fast")
    with command_turn(session, command):
        assert "Bash(make test:*)" in session.policy.session_allow and session.options.model == "claude-haiku-4-5"
    assert "Bash(make test:*)" not in session.policy.session_allow and session.options.model != "claude-haiku-4-5"


def test_a_read_deny_rule_keeps_a_mentioned_file_out(project):
    write(project / "secret.env", "TOKEN=abc\n")
    write(project / ".claude/settings.json", '{"permissions": {"deny": ["Read(./secret.env)"]}}')
    prepared = prepare_prompt(_session(project), "look at @secret.env and @notes.txt")
    assert "TOKEN=abc" not in prepared.prompt and "remember the milk" in prepared.prompt
