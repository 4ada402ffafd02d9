"""`@path` attachments meet the Read tool's rules, from every source: the prompt, a command file, a skill."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tui.agent.options import AgentOptions
from tui.agent.prompt.pipeline import prepare_prompt
from tui.agent.session import AgentSession
from tui.config.sandbox_settings import SandboxSettings
from tui.sandbox import runtime
from tui.tools.attachments import Attachment

SECRET = "SECRET-KEY-0123"


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A home with a key in `~/.ssh` (in sandbox.deny_read) and a plain notes file, and `~` pointing at it."""
    home = tmp_path / "home"
    _write(home / ".ssh" / "id_rsa", SECRET + "\n")
    _write(home / "notes.txt", "just notes\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude-home"))
    previous = runtime.current()
    runtime._current = runtime.SandboxRuntime(SandboxSettings(deny_read=[str(home / ".ssh")]), str(home))
    yield home
    runtime._current.close()
    runtime._current = previous


@pytest.fixture
def project(tmp_path: Path) -> Path:
    project = tmp_path / "proj"
    _write(project / "app.py", "print('app')\n")
    _write(project / ".env", "TOKEN=abc\n")
    return project


def _session(project: Path, **options: object) -> AgentSession:
    return AgentSession(AgentOptions(project_dir=project, transcript=False, **options))  # type: ignore[arg-type]


def test_a_secret_in_deny_read_is_never_attached_nor_a_link_to_it(home: Path, project: Path) -> None:
    (project / "key-link").symlink_to(home / ".ssh" / "id_rsa")
    for mode in ("default", "bypassPermissions"):
        session = _session(project, permission_mode=mode)
        asked: list[Attachment] = []
        for mention in ("@~/.ssh/id_rsa", "@key-link"):
            prepared = prepare_prompt(
                session, f"check {mention} and @app.py", ask=lambda a, asked=asked: asked.append(a) or True
            )
            assert SECRET not in prepared.prompt and "print('app')" in prepared.prompt
            assert len(prepared.notices) == 1
            assert prepared.notices[0].startswith(f"{mention} was not attached: ")
            assert "sandbox.deny_read" in prepared.notices[0]
        assert asked == []  # a refusal is never turned into a question


def test_a_deny_rule_refuses_the_attachment_as_it_refuses_read(home: Path, project: Path) -> None:
    session = _session(project, disallowed_tools=["Read(./.env)"])
    prepared = prepare_prompt(session, "look at @.env")
    assert "TOKEN=abc" not in prepared.prompt
    assert prepared.notices == [
        f"@.env was not attached: Read on {project / '.env'} is denied by the rule `Read(./.env)`."
    ]


def test_an_outside_path_is_asked_in_the_app_and_refused_in_print_mode(home: Path, project: Path) -> None:
    (project / "notes-link").symlink_to(home / "notes.txt")
    refused = prepare_prompt(_session(project), "read @~/notes.txt and @notes-link")  # -p: no one to ask
    assert "just notes" not in refused.prompt
    assert refused.notices[0] == (
        f"@~/notes.txt was not attached: {home / 'notes.txt'} is outside the project, and -p cannot ask: allow "
        f"reading it with the rule `Read(/{home / 'notes.txt'})` (--allowedTools or a settings file) to attach it."
    )
    assert f"(it links to {home / 'notes.txt'})" in refused.notices[1]

    asked: list[Attachment] = []
    allowed = prepare_prompt(_session(project), "read @~/notes.txt", ask=lambda a: asked.append(a) or True)
    assert '<file path="~/notes.txt">\njust notes\n</file>' in allowed.prompt and not allowed.notices
    assert asked[0].kind == "ask" and asked[0].suggested_rule == f"Read(/{home / 'notes.txt'})"
    declined = prepare_prompt(_session(project), "read @~/notes.txt", ask=lambda a: False)
    assert "just notes" not in declined.prompt and "you did not allow it" in declined.notices[0]

    rule = f"Read(/{home / 'notes.txt'})"  # the advice works: the rule lets -p attach it
    assert "just notes" in prepare_prompt(_session(project, allowed_tools=[rule]), "read @~/notes.txt").prompt


def test_an_untrusted_folders_command_attaches_nothing_from_outside(home: Path, project: Path) -> None:
    _write(project / ".claude/commands/peek.md", "Peek at @~/notes.txt and @app.py\n")
    rule = f"Read(/{home / 'notes.txt'})"
    session = _session(project, allowed_tools=[rule])
    prepared = prepare_prompt(session, "/peek", ask=lambda a: True)
    assert "just notes" not in prepared.prompt and "print('app')" in prepared.prompt
    assert "comes from a folder you have not trusted" in prepared.notices[0]
    assert str(project / ".claude/commands/peek.md") in prepared.notices[0]


def test_a_skill_the_model_loads_says_what_it_did_not_attach(home: Path, project: Path) -> None:
    from tui.config.settings import trust_folder

    trust_folder(project)
    _write(project / ".claude/skills/peek/SKILL.md", "---\ndescription: Peek\n---\nPeek at @~/.ssh/id_rsa\n")
    session = _session(project)
    tool = next(t for t in session.tools if t.name == "Skill")
    text = tool.run({"skill": "peek"}, session._tool_context("t1")).text()
    assert SECRET not in text and "[@~/.ssh/id_rsa was not attached:" in text and "sandbox.deny_read" in text
