"""Command and skill files from the project and the user: names, frontmatter, precedence, bad files."""

from __future__ import annotations

import pytest

from tui.hooks.commands import load_catalog
from tui.hooks.frontmatter import FrontmatterError, split_frontmatter

from .helpers import user_claude, write  # noqa: F401 - fixture


def test_frontmatter_reads_the_forms_claude_code_files_use():
    fields, body = split_frontmatter(
        '---\ndescription: "Review: a file"\nallowed-tools: [Read, "Bash(git add:*)"]\n'
        "disable-model-invocation: yes\narguments:\n  - file\n  - mode\nwhen_to_use: >\n  long\n  text\n---\nBody $0\n"
    )
    assert fields == {
        "description": "Review: a file",
        "allowed-tools": ["Read", "Bash(git add:*)"],
        "disable-model-invocation": "yes",
        "arguments": ["file", "mode"],
        "when_to_use": "long text",
    }
    assert body == "Body $0\n"
    assert split_frontmatter("no frontmatter\n") == ({}, "no frontmatter\n")


@pytest.mark.parametrize(
    "text, where",
    [
        ("---\ndescription: x\n", "never closed"),
        ("---\njust words\n---\n", "line 2"),
        ("---\ndescription: 'open\n---\n", "no closing quote"),
    ],
)
def test_broken_frontmatter_names_the_line(text, where):
    with pytest.raises(FrontmatterError, match=where):
        split_frontmatter(text)


def test_commands_and_skills_from_every_folder(tmp_path, user_claude):
    project = tmp_path / "p"
    write(
        project / ".claude/commands/frontend/review.md",
        "---\ndescription: Review a component\nargument-hint: <file>\nallowed-tools: Bash(git diff:*), Read\n"
        "model: claude-haiku-4-5\n---\nReview $ARGUMENTS\n",
    )
    write(project / ".agent-tui/commands/ship.md", "# Ship it\n\nShip $0.\n")
    write(user_claude / "commands/mine.md", "---\ndescription: a user command\n---\nmine\n")
    write(user_claude / "commands/ship.md", "---\ndescription: user ship\n---\nuser\n")
    write(
        project / ".claude/skills/deploy/SKILL.md",
        "---\nname: Deploy\ndescription: Deploy the app\ndisable-model-invocation: true\n---\nDeploy\n",
    )
    write(project / ".claude/commands/deploy.md", "---\ndescription: the command deploy\n---\nc\n")
    catalog = load_catalog(project)
    assert catalog.problems == []
    review = catalog.get("frontend:review")
    assert review is not None and review.description == "Review a component" and review.argument_hint == "<file>"
    assert review.allowed_tools == ("Bash(git diff:*)", "Read") and review.model == "claude-haiku-4-5"
    assert review.source == "project"
    ship = catalog.get("/ship")
    assert ship is not None and ship.source == "project" and ship.description == "Ship it"  # first line
    assert catalog.get("mine").source == "user"
    deploy = catalog.get("deploy")
    assert deploy.kind == "skill" and deploy.disable_model_invocation  # a skill beats a command of its name
    offered = [c.name for c in catalog.skills_for_model()]
    assert "deploy" not in offered  # disable-model-invocation
    assert {"frontend:review", "mine", "ship"} <= set(offered)  # described by its first line, as Claude Code lists it


def test_bad_files_are_one_sentence_each_and_the_rest_loads(tmp_path, user_claude):
    project = tmp_path / "p"
    write(project / ".claude/commands/good.md", "---\ndescription: fine\n---\nok\n")
    write(project / ".claude/commands/broken.md", "---\ndescription: [unclosed\n---\nx\n")
    write(project / ".claude/commands/typed.md", "---\ndescription:\n  - a\n  - b\n---\nx\n")
    (project / ".claude/commands/latin1.md").write_bytes(b"caf\xe9\n")
    (project / ".claude/skills/nofile").mkdir(parents=True)
    write(project / ".claude/skills/nofile/notes.md", "not a skill file")
    write(project / ".claude/skills/ok/SKILL.md", "---\ndescription: a skill\n---\nbody\n")
    catalog = load_catalog(project)
    assert set(catalog.commands) == {"good", "ok"}
    problems = "\n".join(catalog.problems)
    assert len(catalog.problems) == 4
    assert f"{project}/.claude/commands/broken.md has broken frontmatter (line 2:" in problems
    assert "/broken was skipped" in problems
    assert f"{project}/.claude/commands/typed.md has a bad frontmatter key `description`" in problems
    assert "latin1.md is not UTF-8 text" in problems
    assert f"{project}/.claude/skills/nofile has no SKILL.md; the skill /nofile was skipped." in problems
    assert "Traceback" not in problems


@pytest.mark.parametrize("depth", [17, 1000])
@pytest.mark.parametrize(
    "where, kind", [(".claude/commands/deep.md", "command /deep"), (".claude/skills/deep/SKILL.md", "skill /deep")]
)
def test_deeply_nested_frontmatter_is_one_sentence_naming_the_file(tmp_path, user_claude, where, kind, depth):
    project = tmp_path / "p"
    write(project / where, f"---\nallowed-tools: {'[' * depth}Read{']' * depth}\n---\nbody\n")
    write(project / ".claude/commands/good.md", "---\nallowed-tools: [[Read]]\n---\nok\n")
    catalog = load_catalog(project)
    assert set(catalog.commands) == {"good"}
    [problem] = catalog.problems
    assert problem.startswith(f"{project / where} has broken frontmatter (line 2: lists are nested more than 16 deep)")
    assert problem.endswith(f"the {kind} was skipped.") and len(problem) < 300
