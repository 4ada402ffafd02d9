"""Plugins end to end: `agent-tui plugin …` in a subprocess, and `-p` against the fake API.

A plugin's command runs, its hook fires only once the user installed it or trusted the folder that enables
it, its MCP server's tools are offered; broken plugins are one sentence each on stderr and the rest works.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakeapi import FakeAPI
from tests.fakeapi.script import reply, text, tool_use
from tests.fixtures import bare_git_market, copy_plugin_market

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


def _env(home: Path, base_url: str | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "XDG_"))}
    env.update(
        XDG_CONFIG_HOME=str(home / "config"),
        XDG_DATA_HOME=str(home / "data"),
        PYTHONPATH=str(ROOT),
        AGENT_TUI_TEST_PYTHON=sys.executable,
    )
    if base_url:
        env.update(ANTHROPIC_BASE_URL=base_url, ANTHROPIC_API_KEY="sk-test")
    return env


def agent_tui(home: Path, *args: str, base_url: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tui.cli.main", *args],
        env=_env(home, base_url),
        capture_output=True,
        text=True,
        timeout=120,
    )


def plugin(home: Path, project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return agent_tui(home, "plugin", "--cwd", str(project), *args)


def _first_prompt(body: dict) -> str:
    return json.dumps(body["messages"][0])


def test_the_plugin_commands_end_to_end_with_a_git_marketplace(tmp_path: Path, home: Path, project: Path) -> None:
    bare = bare_git_market(tmp_path)
    added = plugin(home, project, "marketplace", "add", str(bare))
    assert added.returncode == 0, added.stderr
    assert f"Added the marketplace team-tools (7 plugins) from git {bare.as_uri()}." in added.stdout
    listed = plugin(home, project, "marketplace", "list")
    assert (
        f"team-tools  git {bare.as_uri()}" in listed.stdout
        and "  toolkit  A command, an agent and a skill" in listed.stdout
    )
    done = plugin(home, project, "install", "toolkit@team-tools")
    settings = home / "config" / "agent-tui" / "settings.toml"
    assert done.returncode == 0 and done.stdout.strip() == (
        f"Installed toolkit@team-tools 1.0.0: 2 commands, 1 skill, 1 agent. It is on (enabled_plugins in {settings})."
    )
    assert '"toolkit@team-tools" = true' in settings.read_text()
    off = plugin(home, project, "disable", "toolkit@team-tools")
    assert off.returncode == 0 and off.stdout.startswith(f"Disabled toolkit@team-tools (enabled_plugins in {settings})")
    assert plugin(home, project, "list").stdout.strip() == f"toolkit@team-tools  1.0.0  disabled ({settings})"
    assert plugin(home, project, "enable", "toolkit@team-tools").returncode == 0
    broken = plugin(home, project, "install", "broken@team-tools")
    assert broken.returncode == 1 and broken.stdout == "" and len(broken.stderr.strip().splitlines()) == 1
    assert "The plugin broken@team-tools cannot be installed: plugin manifest: " in broken.stderr
    unknown = plugin(home, project, "install", "nope@team-tools")
    assert (
        unknown.returncode == 1
        and "The marketplace team-tools has no plugin called nope (it lists: toolkit," in unknown.stderr
    )
    removed = plugin(home, project, "marketplace", "remove", "team-tools")
    assert (
        removed.stdout.strip()
        == "Removed the marketplace team-tools and uninstalled its 1 plugin (toolkit@team-tools)."
    )
    assert plugin(home, project, "list").stdout.startswith("No plugin is installed.")
    assert '"toolkit@team-tools"' not in settings.read_text()


def test_a_plugin_command_runs_in_print_mode_by_its_full_and_its_short_name(
    tmp_path: Path, home: Path, project: Path
) -> None:
    market = copy_plugin_market(tmp_path)
    assert plugin(home, project, "marketplace", "add", str(market)).returncode == 0
    assert plugin(home, project, "install", "toolkit@team-tools").returncode == 0
    with FakeAPI([reply("Hello, Ada."), reply("Hello, Bo.")]) as api:
        full = agent_tui(home, "-p", "/toolkit:greet Ada", "--cwd", str(project), base_url=api.base_url)
        short = agent_tui(home, "-p", "/greet Bo", "--cwd", str(project), base_url=api.base_url)
        bodies = [r.body for r in api.message_requests]
    assert (full.returncode, full.stderr, full.stdout.strip()) == (0, "", "Hello, Ada.")
    assert short.returncode == 0 and short.stdout.strip() == "Hello, Bo."
    cache = home / "data" / "agent-tui" / "plugins" / "cache" / "toolkit@team-tools"
    assert f"Say hello to Ada. (This prompt came from the toolkit plugin in {cache}.)" in _first_prompt(bodies[0])
    assert "Say hello to Bo." in _first_prompt(bodies[1])


def _enable_from_folder(project: Path, market: Path) -> None:
    """The team's committed settings: a marketplace by folder and one plugin of it turned on."""
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(
        json.dumps(
            {
                "enabledPlugins": {"guard@team-tools": True},
                "extraKnownMarketplaces": {"team-tools": {"source": {"source": "directory", "path": str(market)}}},
            }
        )
    )


def test_a_plugin_hook_fires_only_once_the_folder_is_trusted(tmp_path: Path, home: Path, project: Path) -> None:
    _enable_from_folder(project, copy_plugin_market(tmp_path))
    with FakeAPI([reply("One."), reply("Two.")]) as api:
        untrusted = agent_tui(home, "-p", "hi", "--cwd", str(project), base_url=api.base_url)
        settings = home / "config" / "agent-tui" / "settings.toml"
        settings.parent.mkdir(parents=True, exist_ok=True)
        settings.write_text(f'trusted_folders = ["{project}"]\n')
        trusted = agent_tui(home, "-p", "hi", "--cwd", str(project), base_url=api.base_url)
        bodies = [r.body for r in api.message_requests]
    assert untrusted.returncode == 0
    assert (
        "agent-tui: settings: Skipping 1 plugin from .claude/settings.json (guard@team-tools): this folder is not "
        "trusted"
    ) in untrusted.stderr
    assert "guard-hook-fired" not in _first_prompt(bodies[0])
    assert trusted.returncode == 0
    assert trusted.stderr.strip() == (
        "agent-tui: Installed the plugin guard@team-tools, which this folder's settings enable."
    )
    assert "guard-hook-fired in guard@team-tools" in _first_prompt(bodies[1])  # ${CLAUDE_PLUGIN_ROOT} and its env


def test_a_plugin_the_user_installed_runs_its_hook_in_an_untrusted_folder_too(
    tmp_path: Path, home: Path, project: Path
) -> None:
    _enable_from_folder(project, copy_plugin_market(tmp_path))
    installed = plugin(home, project, "install", "guard@team-tools")  # the marketplace comes from the settings
    assert installed.returncode == 0, installed.stderr
    assert installed.stdout.startswith("Added the marketplace team-tools, which the settings name.")
    with FakeAPI([reply("One.")]) as api:
        run = agent_tui(
            home,
            "-p",
            "hi",
            "--cwd",
            str(project),
            "--output-format",
            "stream-json",
            "--include-hook-events",
            base_url=api.base_url,
        )
        body = api.message_requests[0].body
    assert run.returncode == 0 and "Skipping" not in run.stderr
    assert "guard-hook-fired" in _first_prompt(body)
    started = [json.loads(line) for line in run.stdout.splitlines() if '"hook_started"' in line]
    assert started and started[0]["hook_name"] == "UserPromptSubmit"


def test_a_plugin_mcp_server_offers_its_tools(tmp_path: Path, home: Path, project: Path) -> None:
    market = copy_plugin_market(tmp_path)
    assert plugin(home, project, "marketplace", "add", str(market)).returncode == 0
    assert plugin(home, project, "install", "kitchen@team-tools").returncode == 0
    script = [
        reply(tool_use("mcp__plugin_kitchen_kitchen__add", {"a": 2, "b": 3}), stop_reason="tool_use"),
        reply(text("2 + 3 = 5"), stop_reason="end_turn"),
    ]
    with FakeAPI(script) as api:
        run = agent_tui(
            home,
            "-p",
            "add 2 and 3",
            "--cwd",
            str(project),
            "--output-format",
            "stream-json",
            "--allowedTools",
            "mcp__plugin_kitchen_kitchen",
            base_url=api.base_url,
        )
        bodies = [r.body for r in api.message_requests]
    assert run.returncode == 0, run.stderr
    init = json.loads(run.stdout.splitlines()[0])
    assert init["mcp_servers"] == [{"name": "plugin_kitchen_kitchen", "status": "connected"}]
    assert "mcp__plugin_kitchen_kitchen__add" in {t["name"] for t in bodies[0]["tools"]}
    assert bodies[1]["messages"][-1]["content"][0]["content"] == "5"


def test_broken_plugins_are_one_sentence_each_and_the_rest_works(tmp_path: Path, home: Path, project: Path) -> None:
    market = copy_plugin_market(tmp_path)
    assert plugin(home, project, "marketplace", "add", str(market)).returncode == 0
    for name in ("toolkit", "twin", "lazy-hook", "guard"):
        assert plugin(home, project, "install", f"{name}@team-tools").returncode == 0
    cache = home / "data" / "agent-tui" / "plugins" / "cache"
    (cache / "guard@team-tools" / ".claude-plugin" / "plugin.json").write_text('{"name": "guard",}')
    import shutil

    shutil.rmtree(cache / "twin@team-tools")
    with FakeAPI([reply("Hi, Ada.")]) as api:
        run = agent_tui(home, "-p", "/greet Ada", "--cwd", str(project), base_url=api.base_url)
        body = api.message_requests[0].body
    assert run.returncode == 0 and run.stdout.strip() == "Hi, Ada."
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 3, lines
    assert lines[0].startswith("agent-tui: Plugin twin@team-tools was not loaded: its folder ")
    assert lines[1].startswith(
        "agent-tui: Plugin lazy-hook@team-tools: its UserPromptSubmit hook "
        "`${CLAUDE_PLUGIN_ROOT}/hooks/run.sh` was skipped: its script hooks/run.sh is not "
        "executable"
    )
    assert lines[2].startswith("agent-tui: Plugin guard@team-tools was not loaded: plugin manifest: ")
    assert "plugin.json:1:18 is not valid JSON" in lines[2]
    assert "Say hello to Ada." in _first_prompt(body)  # twin is gone, so /greet is toolkit's alone again


def test_without_plugin_settings_nothing_of_tui_plugins_is_imported(tmp_path: Path, home: Path) -> None:
    code = (
        "import sys; from tui.cli.main import main; main(['-p', 'hi', '--offline', '--cwd', sys.argv[1]]); "
        "print(sorted(m for m in sys.modules if m.startswith('tui.plugins') or m == 'tui.agent.plugins_live'))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env=_env(home),
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "[]"
