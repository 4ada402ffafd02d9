"""A templates repository's whole `.claude/` with plugins, at 120×40 in a real terminal (issue 35).

The trust question keeps "Trust this folder / Don't trust" on screen under 14 allow rules and 15 agents;
the plugin problem waits until it is answered instead of covering it; /agents shows its descriptions.
"""

from __future__ import annotations

from pathlib import Path

from tests.fixtures import copy_claude_setup, copy_plugin_market, grow_claude_setup

from .tmux_driver import AGENT_TUI, Tmux, needs_tmux

PROBLEM = "both have a command /greet"


def _large_setup(tmp_path: Path) -> Path:
    from tui.config.settings import load_settings
    from tui.plugins.install import install, set_enabled
    from tui.plugins.marketplaces import add_marketplace
    from tui.plugins.sources import parse_source

    project = grow_claude_setup(copy_claude_setup(tmp_path))
    add_marketplace(parse_source(str(copy_plugin_market(tmp_path)), project))
    for name in ("toolkit", "twin"):
        install(f"{name}@team-tools")
        set_enabled(f"{name}@team-tools", True, project, load_settings(project))
    return project


@needs_tmux
def test_a_large_setup_at_120x40_keeps_every_answer_on_screen(tmp_path: Path) -> None:
    project = _large_setup(tmp_path)
    home = tmp_path / "home"
    home.mkdir()
    term = Tmux(project, home, width=120, height=40)
    try:
        term.start(AGENT_TUI, "--offline")
        screen = term.wait_for(lambda s: "Do you trust the files" in s and "Don't trust" in s, "the trust question")
        assert "1 Trust this folder" in screen and "↑↓ PgUp PgDn scroll the list" in screen
        assert PROBLEM not in screen  # the plugin problem waits for the answer
        # "y" (the MCP question has no y), pressed until taken: keys in a dialog's grace time do not count
        term.answer("y", lambda s: "Do you trust the files" not in s)
        screen = term.wait_for(lambda s: "new MCP server" in s and "3 None" in s, "the MCP question")
        assert PROBLEM not in screen
        term.answer("3", lambda s: "new MCP server" not in s)
        term.wait_for(lambda s: PROBLEM.split()[0] in s and "/greet" in s, "the plugin problem, after the answers")
        # keys pressed while a question was arming went back to the prompt (answer_guard.py): clear it
        term.keys(*["BSpace"] * 50)
        term.wait_for(lambda s: "Ask the agent…" in s, "an empty prompt")
        term.keys("/agents", "Enter")
        screen = term.wait_for(lambda s: "Agent types" in s and "Close (Esc)" in s, "/agents")
        assert "Reviews the part" in screen  # the Description column has the room
    finally:
        term.kill()
