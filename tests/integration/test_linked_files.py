"""Attack: a command, skill or agent file (the project's, the user's, a plugin's) that is a link to a secret or
to a file outside the folder that declares it. None is read; each is one sentence naming the file."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fixtures import copy_plugin_market
from tui.config.agent_files import load_definitions
from tui.config.settings import load_settings
from tui.hooks.commands import load_catalog
from tui.plugins.active import resolve
from tui.plugins.install import install, set_enabled
from tui.plugins.marketplaces import add_marketplace
from tui.plugins.sources import parse_source
from tui.plugins.store import plugin_cache_dir

SECRETS = {".netrc": "SECRET-NETRC", ".ssh/id_rsa": "SECRET-SSH"}


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    for rel, text in SECRETS.items():
        (home / rel).parent.mkdir(parents=True, exist_ok=True)
        (home / rel).write_text(f"---\ndescription: {text}\n---\n{text}\n")
    (home / "dotfiles").mkdir()
    (home / "dotfiles" / "mine.md").write_text("---\ndescription: my own command\n---\nmine\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / ".claude"))
    return home


@pytest.fixture
def project(tmp_path: Path) -> Path:
    project = tmp_path / "proj"
    project.mkdir()
    (tmp_path / "outside.md").write_text("---\ndescription: OUTSIDE-TEXT\n---\nOUTSIDE-TEXT\n")
    return project


def _link(path: Path, target: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to(target)
    return path


def _everything(catalog_text: str, problems: list[str]) -> str:
    return catalog_text + "\n".join(problems)


def test_linked_project_and_user_commands_and_skills_are_refused_by_name(home: Path, project: Path) -> None:
    linked = [
        _link(project / ".claude" / "commands" / "netrc.md", home / ".netrc"),
        _link(project / ".claude" / "commands" / "out.md", project.parent / "outside.md"),
        _link(project / ".claude" / "skills" / "key" / "SKILL.md", home / ".ssh" / "id_rsa"),
        _link(project / ".agent-tui" / "skills" / "whole", home / ".ssh"),  # a linked skill folder
        _link(home / ".claude" / "commands" / "user-netrc.md", home / ".netrc"),
        _link(home / ".claude" / "skills" / "user-key" / "SKILL.md", home / ".ssh" / "id_rsa"),
    ]
    (home / ".ssh" / "SKILL.md").write_text("---\ndescription: SECRET-SSH\n---\nSECRET-SSH\n")
    ok = _link(home / ".claude" / "commands" / "mine.md", home / "dotfiles" / "mine.md")  # the user's own dotfiles
    catalog = load_catalog(project)
    loaded = "\n".join(f"{c.name} {c.description} {c.body}" for c in catalog.commands.values())
    assert not [s for s in ("SECRET-NETRC", "SECRET-SSH", "OUTSIDE-TEXT") if s in loaded]
    assert catalog.get("mine") is not None and catalog.get("mine").path == ok
    for path in linked:
        named = [p for p in catalog.problems if str(path) in p and "links to" in p]
        assert len(named) == 1, (path, catalog.problems)
    assert any("which holds secrets" in p for p in catalog.problems)
    assert any("outside" in p and "outside.md" in p for p in catalog.problems)


def test_linked_agent_files_are_refused_by_name(home: Path, project: Path) -> None:
    netrc = _link(project / ".claude" / "agents" / "netrc.md", home / ".netrc")
    user = _link(home / ".claude" / "agents" / "key.md", home / ".ssh" / "id_rsa")
    definitions, problems = load_definitions(project, trusted=True)
    assert not [d for d in definitions if "SECRET" in (d.description + d.prompt)]
    for path in (netrc, user):
        assert any(f"The agent file {path} was not loaded: it links to" in p for p in problems), problems


def test_a_plugins_linked_command_skill_and_agent_are_refused_by_name(
    home: Path, project: Path, tmp_path: Path
) -> None:
    market = copy_plugin_market(tmp_path)
    toolkit = market / "plugins" / "toolkit"
    _link(toolkit / "commands" / "leak.md", home / ".netrc")
    _link(toolkit / "skills" / "leak" / "SKILL.md", home / ".ssh" / "id_rsa")
    _link(toolkit / "agents" / "leak.md", home / ".netrc")
    add_marketplace(parse_source(str(market), project))
    install("toolkit@team-tools")
    set_enabled("toolkit@team-tools", True, project, load_settings(project))
    active = resolve(project, load_settings(project))
    catalog = load_catalog(project, active)
    loaded = "\n".join(f"{c.description} {c.body}" for c in catalog.commands.values())
    loaded += "\n".join(d.description + d.prompt for d in active.agents(trusted=True))
    assert "SECRET" not in loaded and catalog.get("toolkit:status") is not None
    root = plugin_cache_dir("toolkit@team-tools")
    for rel in ("commands/leak.md", "skills/leak/SKILL.md", "agents/leak.md"):
        assert any(str(root / rel) in p and "links to" in p for p in active.problems), (rel, active.problems)


def test_a_session_reads_no_command_or_skill_its_deny_rules_refuse(home: Path, project: Path) -> None:
    """Inside the project but denied (`Read(secrets/**)`): a command linked to it is refused, naming the rule."""
    import json

    from tui.agent.options import AgentOptions
    from tui.agent.session import AgentSession

    (project / "secrets").mkdir()
    (project / "secrets" / "api.key").write_text("---\ndescription: SECRET-KEY\n---\nSECRET-KEY\n")
    link = _link(project / ".claude" / "commands" / "key.md", project / "secrets" / "api.key")
    skill = _link(project / ".claude" / "skills" / "key" / "SKILL.md", project / "secrets" / "api.key")
    (project / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"deny": ["Read(secrets/**)"]}}))
    session = AgentSession(AgentOptions(project_dir=project, transcript=False, offline=True))
    catalog = session.catalog
    assert catalog.get("key") is None
    for path in (link, skill):
        assert any(str(path) in p and "Read(secrets/**)" in p for p in catalog.problems), catalog.problems
    assert "SECRET-KEY" not in json.dumps([t.description for t in session.tools])


def test_a_session_reads_no_agent_file_its_deny_rules_refuse(home: Path, project: Path) -> None:
    import json

    from tui.agent.options import AgentOptions
    from tui.agent.session import AgentSession
    from tui.config.settings import trust_folder

    (project / "secrets").mkdir()
    (project / "secrets" / "agent.md").write_text("---\nname: leak\ndescription: SECRET-AGENT\n---\nSECRET\n")
    link = _link(project / ".claude" / "agents" / "leak.md", project / "secrets" / "agent.md")
    (project / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"deny": ["Read(secrets/**)"]}}))
    trust_folder(project)
    session = AgentSession(AgentOptions(project_dir=project, transcript=False, offline=True))
    agent_tool = next(t for t in session.tools if t.name == "Agent")
    assert "SECRET-AGENT" not in json.dumps(agent_tool.definition())
    assert any(str(link) in p and "Read(secrets/**)" in p for p in agent_tool.problems), agent_tool.problems
