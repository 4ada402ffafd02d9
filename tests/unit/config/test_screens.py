"""The /permissions and /memory screens driven with Pilot: add, remove, close."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from textual.app import App
from textual.widgets import DataTable, Input, Static

from tui.config.memory import load_memory
from tui.config.settings import build_policy, load_settings
from tui.ui.screens.memory_screen import MemoryScreen
from tui.ui.screens.permissions_screen import PermissionsScreen


@pytest.fixture
def proj(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    path = tmp_path / "proj"
    (path / ".agent-tui").mkdir(parents=True)
    (path / ".agent-tui" / "settings.toml").write_text(
        '[permissions]\ndeny = ["Bash(rm *)"]\nallow = ["Bash(make *)"]\n'
    )
    return path


def rows(screen: PermissionsScreen) -> list[tuple[str, str, str]]:
    table = screen.query_one("#permissions-rules", DataTable)
    return [(str(r[0]), str(r[1]), str(r[3])) for r in (table.get_row_at(i) for i in range(table.row_count))]


async def test_permissions_screen_lists_adds_and_removes(proj: Path) -> None:
    loaded = load_settings(proj)
    policy = build_policy(loaded, proj, None, ["Read"], [])
    screen = PermissionsScreen(policy, loaded, proj)
    app = App()
    async with app.run_test(size=(120, 40)) as pilot:
        app.push_screen(screen)
        await pilot.pause()
        assert rows(screen) == [
            ("Bash(rm *)", "deny", "yes"),
            ("Bash(make *)", "allow", "no (untrusted folder)"),
            ("Read", "allow", "yes"),
        ]
        screen.query_one("#permissions-new-rule", Input).focus()
        await pilot.press(*"Bash(npm run test *)", "enter")
        await pilot.pause()
        local = proj / ".agent-tui" / "settings.local.toml"
        assert tomllib.loads(local.read_text())["permissions"]["allow"] == ["Bash(npm run test *)"]
        assert ("Bash(npm run test *)", "allow", "yes") in rows(screen)
        screen.query_one("#permissions-new-rule", Input).value = "Bash(npm"
        await pilot.press("enter")
        assert "not a rule" in str(screen.query_one("#permissions-message", Static).render())
        table = screen.query_one("#permissions-rules", DataTable)
        table.focus()
        index = [r[0] for r in rows(screen)].index("Bash(npm run test *)")
        table.move_cursor(row=index)
        await pilot.press("d")
        await pilot.pause()
        assert "Bash(npm run test *)" not in [r[0] for r in rows(screen)]
        assert tomllib.loads(local.read_text())["permissions"]["allow"] == []
        fresh = build_policy(load_settings(proj), proj, None, [], [])
        assert not any(r.rule == "Bash(npm run test *)" for r in fresh.effective_rules())
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is not screen


async def test_memory_screen_shows_files_and_closes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    (tmp_path / "AGENTS.md").write_text("Use tabs.\n@docs.md\n")
    (tmp_path / "docs.md").write_text("Docs live here.")
    screen = MemoryScreen(load_memory(tmp_path))
    app = App()
    async with app.run_test(size=(100, 30)) as pilot:
        app.push_screen(screen)
        await pilot.pause()
        table = screen.query_one("#memory-files", DataTable)
        assert table.row_count == 2
        assert str(table.get_row_at(1)[1]) == str(tmp_path / "AGENTS.md")
        assert "Use tabs." in str(screen.query_one("#memory-text", Static).render())
        await pilot.press("down")
        await pilot.pause()
        assert "Docs live here." in str(screen.query_one("#memory-text", Static).render())
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is not screen


async def test_screens_open_with_only_what_the_slash_commands_pass(proj: Path) -> None:
    (proj / "AGENTS.md").write_text("be brief")
    policy = build_policy(load_settings(proj), proj, None, [], [])
    app = App()
    async with app.run_test(size=(100, 30)) as pilot:
        app.push_screen(PermissionsScreen(policy=policy, project_dir=proj))
        await pilot.pause()
        assert "trusted: no" in str(app.screen.query_one("#permissions-status", Static).render())
        await pilot.press("escape")
        app.push_screen(MemoryScreen(project_dir=proj))
        await pilot.pause()
        assert app.screen.query_one("#memory-files", DataTable).row_count == 1


async def test_memory_screen_lists_the_rules_sent_after_a_tool_result(tmp_path: Path) -> None:
    from tui.agent.context.path_rules import PathRules
    from tui.config.memory import MemoryFile, memory_system_text

    (tmp_path / "CLAUDE.md").write_text("Use tabs.")
    files = load_memory(tmp_path)
    rules = PathRules()
    rules.sent.append(MemoryFile(tmp_path / ".claude/rules/py.md", "Python rule."))

    class Session:
        memory_files = files
        memory_text = memory_system_text(files)
        path_rules = rules

        def system_blocks(self) -> list[dict[str, str]]:
            return [{"type": "text", "text": "rules"}, {"type": "text", "text": self.memory_text}]

    screen = MemoryScreen(session=Session(), project_dir=tmp_path)
    app = App()
    async with app.run_test(size=(120, 30)) as pilot:
        app.push_screen(screen)
        await pilot.pause()
        table = screen.query_one("#memory-files", DataTable)
        assert table.row_count == 2
        assert str(table.get_row_at(1)[2]) == "after a tool result (paths: matched)"
        await pilot.press("down")
        await pilot.pause()
        assert "Python rule." in str(screen.query_one("#memory-text", Static).render())
