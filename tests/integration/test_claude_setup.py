"""A whole Claude Code setup (tests/fixtures/claude_setup): every item in it is loaded, or named with its file.

The fixture's items are listed here from its files directly (hooks of each event, every agent file in
subfolders, every command and skill, every settings key, every MCP server); each must be either in force
in a session built as the CLI builds it, or named: in the trust inventory (untrusted), or in a sentence
that names the file. Checked untrusted and trusted.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures import copy_claude_setup
from tui.agent.prompt.catalog import session_catalog
from tui.agent.session import AgentSession
from tui.cli.main import options_from_args
from tui.cli.parser import build_parser
from tui.config.settings import load_settings, trust_folder
from tui.trust.inventory import folder_inventory

#: the settings keys agent-tui reads (the others must be named as not used)
READ_KEYS = {"permissions", "hooks", "statusLine", "apiKeyHelper", "$schema"}


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # no user agents, commands or skills of the machine's
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "home" / ".claude"))
    return copy_claude_setup(tmp_path)


def fixture_items(project: Path) -> list[tuple[str, Any]]:
    """What the fixture brings, read from its files without agent-tui: (kind, what identifies it)."""
    items: list[tuple[str, Any]] = []
    for name in ("settings.json", "settings.local.json"):
        data = json.loads((project / ".claude" / name).read_text())
        items += [("key", (name, key)) for key in data]
        items += [("allow", rule) for rule in data.get("permissions", {}).get("allow", [])]
        for event, groups in data.get("hooks", {}).items():
            items += [("hook", (event, h["command"])) for group in groups for h in group["hooks"]]
    items += [("mcp", name) for name in json.loads((project / ".mcp.json").read_text())["mcpServers"]]
    items += [("agent", path) for path in sorted((project / ".claude/agents").rglob("*.md"))]
    items += [("command", path) for path in sorted((project / ".claude/commands").rglob("*.md"))]
    items += [("skill", path) for path in sorted((project / ".claude/skills").iterdir())]
    return items


def _session(project: Path) -> tuple[AgentSession, list[str]]:
    args = build_parser().parse_args(["-p", "hi", "--offline", "--cwd", str(project)])
    options, problems = options_from_args(args)
    session = AgentSession(options)
    return session, problems


def _state(project: Path) -> dict[str, Any]:
    """Everything the session put in force, and every sentence that names something skipped."""
    session, problems = _session(project)
    agent_tool = next(t for t in session.tools if t.name == "Agent")
    definitions = agent_tool.definitions()
    catalog = session_catalog(session)
    hooks = session.options.hooks
    inventory = folder_inventory(project)
    loaded = load_settings(project)
    return {
        "trusted": loaded.trusted,
        "session": session,
        "inventory": inventory,
        "settings": loaded.settings,
        "hooks_running": {(h.event, h.command) for h in hooks.hooks if hooks.trusted or not h.project},
        "agents": {Path(d.path) for d in definitions if d.path},
        "commands": {c.path for c in catalog.commands.values()},
        "counting_allow": {r.rule for r in session.policy.effective_rules() if r.kind == "allow" and r.counts},
        "mcp": {s.name for s in session.options.mcp_servers},
        "sentences": [
            *problems,
            *catalog.problems,
            *agent_tool.problems,
            *(session.options.plugins.notices() if session.options.plugins else []),
        ],
        # what the trust question (and -p's lines) name; trusted, nothing may hide there
        "named": [] if loaded.trusted else [*(f"{i.text} {i.path}" for i in inventory.items), *inventory.problems],
    }


def _loaded(kind: str, what: Any, state: dict[str, Any]) -> bool:
    settings = state["settings"]
    if kind == "key":
        return (
            what[1] in READ_KEYS
            and (what[1] != "statusLine" or settings.status_line is not None)
            and (what[1] != "apiKeyHelper" or settings.api_key_helper is not None)
        )
    if kind == "allow":
        return what in state["counting_allow"]
    if kind == "hook":
        return what in state["hooks_running"]
    if kind == "mcp":
        return what in state["mcp"]
    if kind == "agent":
        return what in state["agents"]
    if kind == "command":
        return what in state["commands"]
    return what / "SKILL.md" in state["commands"]


def _named(kind: str, what: Any, state: dict[str, Any]) -> bool:
    texts = [*state["named"], *state["sentences"]]
    if kind == "hook":  # by its command, or its event named as one agent-tui does not fire
        return any(what[1] in text or f"hooks.{what[0]}`: agent-tui does not fire" in text for text in texts)
    needle = {"key": lambda w: w[1], "mcp": lambda w: f"{w}:"}.get(kind, str)(what)
    return any(needle in text for text in texts)


@pytest.mark.parametrize("trusted", [False, True], ids=["untrusted", "trusted"])
def test_every_item_of_a_claude_code_setup_is_loaded_or_named(project: Path, trusted: bool) -> None:
    if trusted:
        trust_folder(project)
    state = _state(project)
    assert state["trusted"] is trusted
    missing = [
        (kind, what)
        for kind, what in fixture_items(project)
        if not _loaded(kind, what, state) and not _named(kind, what, state)
    ]
    assert missing == []


def test_untrusted_the_inventory_names_what_trust_switches_on(project: Path) -> None:
    inventory = folder_inventory(project)
    texts = {kind.key: [i.text for i in items] for kind, items in inventory.by_kind()}
    assert texts["hooks"] == [
        "PreToolUse Bash: echo pre-bash >> .hook-log",
        'PreToolUse Edit|Write: echo pre-edit "$CLAUDE_PROJECT_DIR" >> .hook-log',
        "PostToolUse Write: echo formatted >> .hook-log",
        "UserPromptSubmit *: echo prompt-seen >> .hook-log",
        "Stop *: echo stopped >> .hook-log",
        "SessionStart startup: echo session-started >> .hook-log",
        "Notification *: echo notified >> .hook-log",
    ]
    assert texts["mcp"] == ["docs: python3 -m acme_docs_server --stdio", "tracker: https://mcp.acme.dev/mcp (HTTP)"]
    assert texts["allow"] == [
        "allow Bash(npm run test *)",
        "allow Bash(make *)",
        "allow WebFetch(domain:docs.acme.dev)",
    ]
    assert texts["settings_commands"] == ["statusLine: echo fixture-status", "apiKeyHelper: echo sk-fixture-key"]
    assert sorted(texts["agents"]) == ["code-reviewer", "release-manager", "security-auditor"]
    assert texts["shell_lines"] == ["/git:summary: !`git status --short`", "/deploy-check: !`git log -1 --oneline`"]
    assert texts["allowed_tools"] == ["/git:summary: Bash(git status:*)"]
    assert inventory.catalog_counts == (5, 2)
    assert inventory.summary() == (
        "7 hooks, 2 MCP servers, 3 allow rules, 2 settings commands, 3 agents, "
        "2 commands and skills with `!` lines and 1 command or skill with allowed-tools"
    )


def test_trusted_nothing_is_left_to_switch_on_and_the_agents_in_subfolders_load(project: Path) -> None:
    trust_folder(project)
    state = _state(project)
    assert {p.relative_to(project).as_posix() for p in state["agents"]} == {
        ".claude/agents/reviewer.md",
        ".claude/agents/review/security.md",
        ".claude/agents/ops/deploy/release.md",
    }
    agent_sentences = [s for s in state["sentences"] if "agent file" in s]
    assert agent_sentences == [
        f"The agent file {project / '.claude/agents/broken.md'} was not loaded: the frontmatter has no `description`.",
        f"The agent file {project / '.claude/agents/dupes/reviewer-copy.md'} was not loaded: the name "
        f"`code-reviewer` is taken by {project / '.claude/agents/reviewer.md'}.",
    ]
    assert len(state["hooks_running"]) == 7


def test_commands_with_spaces_and_namespaces_get_names_one_can_type(project: Path) -> None:
    session, _ = _session(project)
    names = sorted(session_catalog(session).commands)
    assert names == [
        "changelog",
        "deploy-check",
        "fix-issue",
        "frontend:component",
        "git:summary",
        "release-notes",
        "review-quick",
    ]
    problems = session_catalog(session).problems
    assert problems == [f"{project / '.claude/skills/scratch'} has no SKILL.md; the skill /scratch was skipped."]
