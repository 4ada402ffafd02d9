"""Memory files and their `@path` imports meet the Read tool's rules before they reach the system prompt."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tui.agent.context.memory_imports import pending_external
from tui.agent.events import Notice
from tui.agent.options import AgentOptions
from tui.agent.session import AgentSession
from tui.config.memory import external_imports_answer, save_external_imports_answer
from tui.config.paths import user_config_dir
from tui.config.sandbox_settings import SandboxSettings
from tui.sandbox import runtime


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A home with a key in `~/.ssh` (in sandbox.deny_read, as by default) and a notes file."""
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("PRIVATE-KEY")
    (home / "notes.md").write_text("HOME-NOTES")
    monkeypatch.setenv("HOME", str(home))
    previous = runtime.current()
    runtime._current = runtime.SandboxRuntime(SandboxSettings(deny_read=[str(home / ".ssh")]), str(home))
    yield home
    runtime._current.close()
    runtime._current = previous


@pytest.fixture
def project(tmp_path: Path, home: Path) -> Path:
    (tmp_path / "outside.txt").write_text("OUTSIDE-TEXT")
    project = tmp_path / "proj"
    project.mkdir()
    (project / "inside.md").write_text("INSIDE-TEXT")
    (project / "link.md").symlink_to(tmp_path / "outside.txt")
    (project / "key.md").symlink_to(home / ".ssh" / "id_rsa")
    (project / "CLAUDE.md").write_text("@inside.md\n@../outside.txt\n@link.md\n@~/.ssh/id_rsa\n@key.md\n")
    return project


def _trust(project: Path, extra: str = "") -> None:
    user_config_dir().mkdir(parents=True, exist_ok=True)
    (user_config_dir() / "settings.toml").write_text(f"trusted_folders = [{json.dumps(str(project))}]\n{extra}")


def _system(project: Path, interactive: bool) -> tuple[str, AgentSession, list[str]]:
    session = AgentSession(
        AgentOptions(project_dir=project, transcript=False, offline=True, interactive=interactive), tools=[]
    )
    notices: list[str] = []
    session.bus.subscribe(lambda e: notices.append(e.text) if isinstance(e, Notice) else None, inline=True)
    text = json.dumps(session.system_blocks())
    return text, session, notices


SECRETS = ("OUTSIDE-TEXT", "PRIVATE-KEY")


def test_print_imports_nothing_from_outside_and_names_each_file(project: Path) -> None:
    _trust(project)
    save_external_imports_answer(project, True)  # even a yes given in the app does not count in -p
    text, _, notices = _system(project, interactive=False)
    assert "INSIDE-TEXT" in text
    assert not [s for s in SECRETS if s in text]
    for name in ("outside.txt", "link.md", "id_rsa", "key.md"):
        assert any(name in n and "was not loaded" in n for n in notices), (name, notices)
    assert any("link.md" in n and "links to" in n for n in notices)


def test_the_app_asks_once_per_project_and_deny_rules_hold_after_a_yes(project: Path) -> None:
    _trust(project)
    text, session, notices = _system(project, interactive=True)
    assert not [s for s in SECRETS if s in text]
    assert {s.path.name for s in pending_external(session)} == {"outside.txt", "link.md"}
    assert any("id_rsa" in n and "deny_read" in n for n in notices)  # a secret is never a question
    save_external_imports_answer(project, True)
    assert external_imports_answer(project) is True
    session.reload_memory()
    text = json.dumps(session.system_blocks())
    assert "OUTSIDE-TEXT" in text and "PRIVATE-KEY" not in text
    assert pending_external(session) == []


def test_a_no_is_remembered_and_keeps_them_out(project: Path) -> None:
    _trust(project)
    save_external_imports_answer(project, False)
    text, session, _ = _system(project, interactive=True)
    assert "OUTSIDE-TEXT" not in text and pending_external(session) == []


def test_an_untrusted_folder_imports_nothing_from_outside_whatever_the_answer(project: Path) -> None:
    save_external_imports_answer(project, True)
    text, _, notices = _system(project, interactive=True)
    assert "INSIDE-TEXT" in text
    assert not [s for s in SECRETS if s in text]
    assert any("outside.txt" in n and "not trusted" in n for n in notices)


def test_a_deny_rule_refuses_an_inside_import_and_a_link_to_it(project: Path) -> None:
    (project / "secret.md").write_text("DENIED-TEXT")
    (project / "alias.md").symlink_to(project / "secret.md")
    (project / "AGENTS.md").write_text("@secret.md\n@alias.md\n")
    _trust(project, '[permissions]\ndeny = ["Read(secret.md)"]\n')
    text, _, notices = _system(project, interactive=True)
    assert "DENIED-TEXT" not in text
    assert any("alias.md" in n and "Read(secret.md)" in n for n in notices)


def test_a_linked_memory_file_is_refused_like_an_import(project: Path, home: Path) -> None:
    (project / "CLAUDE.md").unlink()
    (project / "CLAUDE.md").symlink_to(home / ".ssh" / "id_rsa")
    (project / "AGENTS.md").symlink_to(project.parent / "outside.txt")
    _trust(project)
    text, _, _ = _system(project, interactive=False)
    assert not [s for s in SECRETS if s in text]


def test_the_users_own_memory_imports_from_anywhere_but_not_a_secret(project: Path) -> None:
    _trust(project)
    user_config_dir().mkdir(parents=True, exist_ok=True)
    (user_config_dir() / "CLAUDE.md").write_text("@~/notes.md\n@~/.ssh/id_rsa\n")
    text, _, _ = _system(project, interactive=False)
    assert "HOME-NOTES" in text and "PRIVATE-KEY" not in text
