"""Agent definition files: frontmatter, where they are read from, trust, and bad files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tui.config.agent_files import (
    GENERAL_PROMPT,
    AgentFileError,
    agent_file_text,
    load_definitions,
    parse_agent_file,
)
from tui.config.frontmatter import split_frontmatter


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text)
    return path


def test_frontmatter_with_lists_in_every_form() -> None:
    meta, body = split_frontmatter("---\nname: a\ntools: [Read, 'Grep']\nother:\n  - x\n  - y\n---\nBody\n")
    assert meta == {"name": "a", "tools": ["Read", "Grep"], "other": ["x", "y"]} and body == "Body\n"
    d = parse_agent_file(
        "---\nname: rev\ndescription: Reviews\ntools: Read, Grep\nmodel: haiku\n---\nReview it.\n",
        Path("rev.md"),
        "user",
    )
    assert (d.name, d.tools, d.model, d.prompt, d.may_nest) == ("rev", ("Read", "Grep"), "haiku", "Review it.", False)
    assert parse_agent_file(agent_file_text("n", "d", ("Read", "Agent"), "opus", "P"), Path("n.md"), "user").may_nest


def test_a_plugins_agent_is_never_refused_for_its_name_or_description_as_in_claude_code() -> None:
    for text, name in (
        ("---\nname: 42\n---\nP\n", "42"),
        ("---\ndescription: d\n---\nP\n", "checker"),
        ("body only\n", "checker"),
        ("---\n  stray\nname: x\n---\nP\n", "checker"),
    ):
        d = parse_agent_file(text, Path("checker.md"), "plugin")
        assert d.name == name and d.description
    with pytest.raises(AgentFileError, match="no `description`"):
        parse_agent_file("---\nname: x\n---\nP\n", Path("x.md"), "project")
    assert parse_agent_file("---\nname: e\ndescription: d\n---\n", Path("e.md"), "user").prompt == GENERAL_PROMPT


def test_agents_read_with_claude_codes_leniency() -> None:
    for text in (
        "---\nname: a\ndescription: [x] | [y]\ntools: [Read, Grep]\nmodel: 4\ncolor: 7\n---\nP\n",
        "---\nname: a\ndescription: two\n  lines\ntools:\n  - Read\n  - Grep\nunknown: {k: v}\n---\nP\n",
    ):
        d = parse_agent_file(text, Path("a.md"), "user")
        assert d.name == "a" and d.tools == ("Read", "Grep") and d.description in ("[x] | [y]", "two lines")


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("no frontmatter", "no `name`"),
        ("---\nname: a\n", "no `name`"),  # never closed: all body, as Claude Code reads it
        ("---\nname: 123\ndescription: d\n---\nbody", "`name` must be text"),
        ("---\nname: true\ndescription: d\n---\nbody", "`name` must be text"),
        ("---\nname: a\ndescription: [x, y]\n---\nbody", "`description` must be text"),
        ("---\nname: a\n---\nbody", "no `description`"),
        ("---\nname: a b\ndescription: d\n---\nbody", "may hold only"),
        ("---\nname: a\nnot a pair\n---\n", "line 3"),
        ("---\nname: a\ndescription: d\n  stray: x\n---\nbody", "not YAML"),
    ],
)
def test_a_bad_file_gets_one_sentence(text: str, says: str) -> None:
    with pytest.raises(AgentFileError, match=says.replace("(", r"\(").replace("`", "`")):
        parse_agent_file(text, Path("x.md"), "user")


def test_project_files_count_only_in_a_trusted_folder_and_win_over_user_ones(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "proj"
    write(home / ".claude" / "agents", "r.md", "---\nname: reviewer\ndescription: user one\n---\nU\n")
    write(project / ".claude" / "agents", "r.md", "---\nname: reviewer\ndescription: claude one\n---\nC\n")
    write(project / ".agent-tui" / "agents", "s.md", "---\nname: sec\ndescription: ours\n---\nS\n")
    write(project / ".claude" / "agents", "bad.md", "---\nname: bad\n---\nB\n")
    untrusted, problems = load_definitions(project, trusted=False, home=home)
    assert {d.name: d.source for d in untrusted} == {
        "general-purpose": "built-in",
        "Explore": "built-in",
        "Plan": "built-in",
        "reviewer": "user",
    }
    assert problems == []
    trusted, problems = load_definitions(project, trusted=True, home=home)
    by_name = {d.name: d for d in trusted}
    assert by_name["reviewer"].description == "claude one" and by_name["sec"].prompt == "S"
    assert problems == [
        f"The agent file {project / '.claude' / 'agents' / 'bad.md'} was not loaded: "
        "the frontmatter has no `description`."
    ]


def test_a_fifo_among_agent_files_is_skipped_with_a_sentence(tmp_path: Path) -> None:
    folder = tmp_path / "home" / ".claude" / "agents"
    folder.mkdir(parents=True)
    os.mkfifo(folder / "pipe.md")
    definitions, problems = load_definitions(tmp_path, trusted=False, home=tmp_path / "home")
    assert len(definitions) == 3 and len(problems) == 1 and "FIFO" in problems[0]


def test_model_names_resolve_like_claude_codes() -> None:
    from tui.agent.subagents import resolve_model

    assert resolve_model("inherit", "claude-opus-5-5") == "claude-opus-5-5"
    assert resolve_model("", "m") == "m"
    assert resolve_model("haiku", "m") == "claude-haiku-5-5"
    assert resolve_model("haiku", "m", "claude-haiku-4-5") == "claude-haiku-4-5"  # ANTHROPIC_SMALL_FAST_MODEL
    assert resolve_model("sonnet", "m", "x") == "claude-sonnet-5-5"
    assert resolve_model("claude-opus-4-8", "m") == "claude-opus-4-8"


def test_agent_rules_name_the_type_and_old_task_rules_still_count(tmp_path: Path) -> None:
    from tui.config.permissions import PermissionPolicy
    from tui.tools.base import SessionState, Tool, ToolContext

    class AgentLike(Tool):  # the permission surface of tui.agent.subagents.AgentTool
        name, description, input_schema, read_only = "Agent", "", {}, True

        def permission_target(self, tool_input: dict, ctx: ToolContext) -> str:
            return str(tool_input.get("subagent_type") or "general-purpose")

    ctx = ToolContext(project_dir=tmp_path, state=SessionState(project_dir=tmp_path))
    policy = PermissionPolicy(deny=["Task(Explore)", "Agent(Plan)"], project_dir=tmp_path)
    decide = lambda kind: policy.check(AgentLike(), {"subagent_type": kind}, ctx).decision  # noqa: E731
    assert (decide("Explore"), decide("Plan"), decide("general-purpose")) == ("deny", "deny", "allow")


def test_agents_in_subfolders_load_and_a_duplicate_name_is_one_sentence(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "proj"
    agents = project / ".claude" / "agents"
    write(agents / "review", "code.md", "---\nname: code-reviewer\ndescription: reviews\n---\nR\n")
    write(agents / "ops" / "deep", "deploy.md", "---\nname: deployer\ndescription: deploys\n---\nD\n")
    write(agents, "reviewer.md", "---\nname: code-reviewer\ndescription: top\n---\nT\n")
    write(home / ".claude" / "agents" / "mine", "helper.md", "---\nname: helper\ndescription: mine\n---\nH\n")
    definitions, problems = load_definitions(project, trusted=True, home=home)
    by_name = {d.name: d for d in definitions}
    assert by_name["deployer"].source == "project" and by_name["helper"].source == "user"
    assert by_name["code-reviewer"].description == "top"  # the shallower file keeps the name
    assert problems == [
        f"The agent file {agents / 'review' / 'code.md'} was not loaded: the name `code-reviewer` "
        f"is taken by {agents / 'reviewer.md'}."
    ]
