"""The trust question: asked once per folder that brings anything trust switches on; /trust both ways, live."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fixtures import copy_claude_setup
from tui.config.settings import load_settings, trust_folder
from tui.ui.app import AgentApp
from tui.ui.screens.trust_dialog import TrustDialog

from .conftest import SIZE, notices, wait_until


def _allow_rule(project) -> None:
    (project / ".agent-tui").mkdir()
    (project / ".agent-tui" / "settings.toml").write_text('[permissions]\nallow = ["Bash(make *)"]\n')


def _listed(app: AgentApp) -> str:
    return app.screen.listed


async def test_trusting_the_folder_makes_its_allow_rules_count(offline_options, demo_project) -> None:
    _allow_rule(demo_project)
    app = AgentApp(offline_options(), permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TrustDialog) and app.screen.armed)
        assert "allow Bash(make *)" in _listed(app)
        await pilot.press("1")
        await wait_until(pilot, lambda: not isinstance(app.screen, TrustDialog))
        assert load_settings(demo_project).trusted
        await wait_until(
            pilot, lambda: any(r.rule == "Bash(make *)" and r.counts for r in app.session.policy.effective_rules())
        )


async def test_declining_is_remembered(offline_options, demo_project) -> None:
    _allow_rule(demo_project)
    app = AgentApp(offline_options(), permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TrustDialog) and app.screen.armed)
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, TrustDialog))
    loaded = load_settings(demo_project)
    assert not loaded.trusted and loaded.settings.declined_folders
    again = AgentApp(offline_options(), permission_grace_s=0)
    async with again.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: again.trust_inventory is not None)
        await pilot.pause(0.3)
        assert not isinstance(again.screen, TrustDialog)


async def test_a_folder_without_anything_of_its_own_is_not_asked_about(offline_options) -> None:
    app = AgentApp(offline_options(), permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.trust_inventory is not None)
        await pilot.pause(0.3)
        assert not isinstance(app.screen, TrustDialog)


async def test_a_broken_settings_file_is_reported_and_the_app_still_starts(offline_options, demo_project) -> None:
    (demo_project / ".agent-tui").mkdir()
    (demo_project / ".agent-tui" / "settings.toml").write_text("model = \n")
    app = AgentApp(offline_options(), permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: any("settings.toml:1" in n for n in notices(app)))


@pytest.fixture
def claude_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "home" / ".claude"))
    return copy_claude_setup(tmp_path)


@pytest.mark.parametrize("what", ["hooks", "agents", "commands"])
async def test_a_folder_with_only_hooks_agents_or_shell_commands_is_asked_about(
    offline_options, demo_project, what: str
) -> None:
    files = {
        "hooks": (
            ".claude/settings.json",
            '{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "make lint"}]}]}}',
        ),
        "agents": (".claude/agents/team/reviewer.md", "---\nname: reviewer\ndescription: reviews\n---\nReview.\n"),
        "commands": (".claude/commands/st.md", "Status: !`git status`\n"),
    }
    name, text = files[what]
    (demo_project / name).parent.mkdir(parents=True)
    (demo_project / name).write_text(text)
    app = AgentApp(offline_options(), permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TrustDialog))
        listed = _listed(app)
        expected = {
            "hooks": "Stop *: make lint",
            "agents": "reviewer (.claude/agents/team/reviewer.md)",
            "commands": "/st: !`git status`",
        }[what]
        assert expected in listed and name.rsplit("/", 1)[0] in listed


async def test_the_question_names_every_hook_server_rule_and_agent_with_its_file(
    offline_options, claude_project
) -> None:
    app = AgentApp(offline_options(project_dir=claude_project), permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TrustDialog) and app.screen.armed)
        listed = _listed(app)
        for line in (
            "7 hooks run on their events",
            ".claude/settings.json",
            'PreToolUse Edit|Write: echo pre-edit "$CLAUDE_PROJECT_DIR" >> .hook-log',
            "SessionStart startup: echo session-started >> .hook-log",
            "2 MCP servers may start",
            "docs: python3 -m acme_docs_server --stdio",
            "tracker: https://mcp.acme.dev/mcp (HTTP)",
            "allow WebFetch(domain:docs.acme.dev)",
            ".claude/settings.local.json",
            "statusLine: echo fixture-status",
            "security-auditor (.claude/agents/review/security.md)",
            "/git:summary: !`git status --short`",
            "/git:summary: Bash(git status:*)",
            "agents/broken.md was not loaded",
        ):
            assert line in listed, line
        either = str(app.screen.query_one("#trust-either").render())
        assert "its 5 commands and 2 skills work as prompts you type" in either


async def test_trust_takes_effect_at_once_and_untrust_takes_it_back(offline_options, claude_project) -> None:
    app = AgentApp(offline_options(project_dir=claude_project), permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TrustDialog) and app.screen.armed)
        agent_tool = next(t for t in app.session.tools if t.name == "Agent")
        assert "security-auditor" not in {d.name for d in agent_tool.definitions()}
        assert not app.session.hooks.config.trusted
        await pilot.press("1")
        await wait_until(pilot, lambda: not isinstance(app.screen, TrustDialog))
        assert app.session.hooks.config.trusted  # the hooks run from the next event on
        log = claude_project / ".hook-log"
        await wait_until(pilot, lambda: log.exists() and "session-started" in log.read_text())  # as at a start
        assert {"security-auditor", "release-manager", "code-reviewer"} <= {d.name for d in agent_tool.definitions()}
        assert "Bash(make *)" in {r.rule for r in app.session.policy.effective_rules() if r.counts}
        await wait_until(pilot, lambda: getattr(app, "status_command", None) is not None)  # statusLine started
        await wait_until(pilot, lambda: app.status.custom == "fixture-status")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "McpApprovalDialog" and app.screen.armed)
        await pilot.press("3")
        await wait_until(pilot, lambda: type(app.screen).__name__ != "McpApprovalDialog")

        await app.submit_prompt("/trust")  # the same list, the other way
        await wait_until(pilot, lambda: isinstance(app.screen, TrustDialog) and app.screen.armed)
        assert app.screen.untrust and "7 hooks run on their events" in _listed(app)
        await pilot.press("1")
        await wait_until(pilot, lambda: not isinstance(app.screen, TrustDialog))
        assert not load_settings(claude_project).trusted
        assert not app.session.hooks.config.trusted
        assert "security-auditor" not in {d.name for d in agent_tool.definitions()}
        assert "Bash(make *)" not in {r.rule for r in app.session.policy.effective_rules() if r.counts}
        assert app.status.custom == ""


async def test_trust_from_the_palette_opens_the_question(offline_options, claude_project) -> None:
    trust_folder(claude_project)
    app = AgentApp(offline_options(project_dir=claude_project), permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: type(app.screen).__name__ == "McpApprovalDialog" and app.screen.armed)
        await pilot.press("escape")
        await wait_until(pilot, lambda: type(app.screen).__name__ != "McpApprovalDialog")
        entries = [c for c in app.get_system_commands(app.screen) if c.title == "/trust"]
        assert entries
        entries[0].callback()
        await wait_until(pilot, lambda: isinstance(app.screen, TrustDialog))
        assert app.screen.untrust


async def test_each_screen_says_what_the_untrusted_folder_skipped_and_that_trust_loads_it(
    offline_options, claude_project
) -> None:
    from tui.ui.widgets.completion import CompletionMenu

    app = AgentApp(offline_options(project_dir=claude_project), permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TrustDialog) and app.screen.armed)
        await pilot.press("2")
        await wait_until(pilot, lambda: not isinstance(app.screen, TrustDialog))
        expected = {
            "/hooks": ("#hooks-untrusted", "its 7 hooks (PreToolUse Bash, PreToolUse Edit|Write"),
            "/agents": ("#agents-untrusted", "its 3 agents (code-reviewer, security-auditor, release-manager) are off"),
            "/mcp": ("#mcp-untrusted", "its 2 MCP servers (docs, tracker) are off"),
            "/permissions": ("#permissions-untrusted", "its 3 allow rules (allow Bash(npm run test *)"),
        }
        for command, (widget, words) in expected.items():
            await app.submit_prompt(command)
            await wait_until(pilot, lambda widget=widget: len(app.screen_stack) > 1 and app.screen.query(widget))
            note = str(app.screen.query_one(widget).render())
            assert note.startswith("This folder is not trusted: ") and words in note, note
            assert note.endswith("/trust loads them.")
            app.screen.dismiss(None)
            await wait_until(pilot, lambda: len(app.screen_stack) == 1)
        app.prompt_area.insert("/")
        menu = app.query_one(CompletionMenu)
        await wait_until(pilot, lambda: menu.has_class("-open"))
        first = str(menu.get_option_at_index(0).prompt)
        assert first.startswith("/trust  folder not trusted: its 7 hooks, 2 MCP servers"), first


async def test_a_skipped_agent_file_is_a_toast_at_start_and_named_in_agents(offline_options, claude_project) -> None:
    trust_folder(claude_project)
    app = AgentApp(offline_options(project_dir=claude_project), permission_grace_s=0)
    toasts: list[str] = []  # every toast, kept (a toast leaves the screen after a few seconds)
    shown = app.notify
    app.notify = lambda message, **kw: (toasts.append(str(message)), shown(message, **kw))  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: any("broken.md was not loaded" in t for t in toasts), timeout=30)
        await wait_until(
            pilot,
            lambda: any("reviewer-copy.md was not loaded: the name `code-reviewer` is taken" in t for t in toasts),
        )
        await wait_until(pilot, lambda: type(app.screen).__name__ == "McpApprovalDialog" and app.screen.armed)
        await pilot.press("escape")  # the MCP servers' question: ask later
        await wait_until(pilot, lambda: len(app.screen_stack) == 1)
        await app.submit_prompt("/agents")
        await wait_until(pilot, lambda: app.screen.query("#agents-problems"))
        problems = str(app.screen.query_one("#agents-problems").render())
        assert "broken.md was not loaded" in problems and "reviewer-copy.md" in problems
        assert not app.screen.query("#agents-untrusted")
