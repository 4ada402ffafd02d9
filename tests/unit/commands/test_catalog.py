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
        ("---\njust words\n---\n", "line 2"),
        ("---\n  stray: x\ndescription: d\n---\n", "line 2: an indented line"),
        ("---\ndescription: d\n\tx: 1\n---\n", "line 2: `description` has a value and indented lines"),
    ],
)
def test_frontmatter_that_is_not_yaml_names_the_line(text, where):
    with pytest.raises(FrontmatterError, match=where):
        split_frontmatter(text)


@pytest.mark.parametrize(
    "text, fields",
    [
        ("---\nargument-hint: [project-name]\n---\n", {"argument-hint": ["project-name"]}),
        ("---\nargument-hint: [--aggressive] | [--maximum]\n---\n", {"argument-hint": "[--aggressive] | [--maximum]"}),
        ("---\ndescription: 'open\n---\n", {"description": "'open"}),
        ("---\ndescription: {a: 1}\n---\n", {"description": "{a: 1}"}),
        ("---\nname: 123\nflag: true\nnone: null\nx: 1.5\n---\n", {"name": 123, "flag": True, "none": None, "x": 1.5}),
        ("---\ndescription: d\n  more words\n---\n", {"description": "d more words"}),
        ("---\nmetadata:\n  a: 1\n  b: [x, y]\n---\n", {"metadata": {"a": 1, "b": ["x", "y"]}}),
    ],
)
def test_values_yaml_or_claude_codes_quoting_pass_reads(text, fields):
    assert split_frontmatter(text)[0] == fields


def test_frontmatter_never_closed_is_all_body_as_claude_code_reads_it():
    assert split_frontmatter("---\ndescription: x\nbody\n") == ({}, "---\ndescription: x\nbody\n")


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


def test_files_claude_code_loads_all_load_and_unreadable_frontmatter_is_one_sentence(tmp_path, user_claude):
    project = tmp_path / "p"
    write(project / ".claude/commands/good.md", "---\ndescription: fine\n---\nok\n")
    write(project / ".claude/commands/broken.md", "---\ndescription: [unclosed\n---\nx\n")
    write(project / ".claude/commands/typed.md", "---\ndescription:\n  - a\n  - b\nargument-hint: [name]\n---\nx\n")
    write(project / ".claude/commands/notyaml.md", "---\n  stray\ndescription: lost\n---\nthe body\n")
    write(project / ".claude/commands/flag.md", "---\ndisable-model-invocation: maybe\nmodel: 3\n---\nx\n")
    (project / ".claude/commands/latin1.md").write_bytes(b"caf\xe9\n")
    (project / ".claude/skills/nofile").mkdir(parents=True)
    write(project / ".claude/skills/nofile/notes.md", "not a skill file")
    write(project / ".claude/skills/ok/SKILL.md", "---\ndescription: a skill\n---\nbody\n")
    catalog = load_catalog(project)
    assert set(catalog.commands) == {"good", "broken", "typed", "notyaml", "flag", "latin1", "ok"}
    assert catalog.get("broken").description == "[unclosed"
    assert catalog.get("typed").description == "a,b" and catalog.get("typed").argument_hint == "name"
    notyaml = catalog.get("notyaml")
    assert notyaml.description == "the body" and notyaml.body == "the body\n"
    assert not catalog.get("flag").disable_model_invocation and catalog.get("flag").model == "3"
    assert catalog.get("latin1").body == "caf\ufffd\n"
    assert catalog.problems == [
        f"{project}/.claude/commands/notyaml.md has frontmatter that is not YAML (line 2: an indented line "
        "'stray' belongs to no key); it was loaded without it, as Claude Code does.",
        f"{project}/.claude/skills/nofile has no SKILL.md; the skill /nofile was skipped.",
    ]


@pytest.mark.parametrize("depth", [17, 1000])
@pytest.mark.parametrize(
    "where, name", [(".claude/commands/deep.md", "deep"), (".claude/skills/deep/SKILL.md", "deep")]
)
def test_deeply_nested_frontmatter_is_one_sentence_and_the_file_loads_without_it(
    tmp_path, user_claude, where, name, depth
):
    project = tmp_path / "p"
    write(project / where, f"---\nallowed-tools: {'[' * depth}Read{']' * depth}\n---\nbody\n")
    write(project / ".claude/commands/good.md", "---\nallowed-tools: [[Read]]\n---\nok\n")
    catalog = load_catalog(project)
    assert set(catalog.commands) == {"good", name} and catalog.get(name).allowed_tools == ()
    [problem] = catalog.problems
    assert problem.startswith(
        f"{project / where} has frontmatter that is not YAML (line 2: lists are nested more than 16 deep)"
    )
    assert problem.endswith("it was loaded without it, as Claude Code does.") and len(problem) < 300
