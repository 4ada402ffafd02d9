"""Attacks through plugins: a marketplace source that leaves the marketplace, a folder re-enabling a plugin the
user turned off, and a plugin folder whose path would run as shell code in a hook command."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.fixtures import copy_plugin_market
from tui.config.settings import load_settings, trust_folder
from tui.hooks.shell_quote import substitute_quoted
from tui.plugins.active import resolve
from tui.plugins.install import install, set_enabled
from tui.plugins.marketplaces import add_marketplace, load_marketplace
from tui.plugins.sources import parse_source
from tui.plugins.store import PluginError, plugin_cache_dir, read_known
from tui.plugins.trust_items import folder_plugin_items


@pytest.fixture
def market(tmp_path: Path) -> Path:
    return copy_plugin_market(tmp_path)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


def _entries(market: Path, *extra: dict) -> None:
    path = market / ".claude-plugin" / "marketplace.json"
    data = json.loads(path.read_text())
    data["plugins"] += list(extra)
    path.write_text(json.dumps(data))


def test_a_marketplace_source_that_leaves_the_marketplace_is_refused(
    market: Path, project: Path, tmp_path: Path
) -> None:
    secret = tmp_path / "secret"
    (secret / ".claude-plugin").mkdir(parents=True)
    (secret / ".claude-plugin" / "plugin.json").write_text('{"name": "linked"}')
    (market / "plugins" / "linked").symlink_to(secret)
    _entries(
        market,
        {"name": "up", "source": "../secret"},
        {"name": "deep", "source": "./plugins/../../secret"},
        {"name": "absolute", "source": str(secret)},
        {"name": "home", "source": "~/secret"},
        {"name": "linked", "source": "./plugins/linked"},
    )
    add_marketplace(parse_source(str(market), project))
    loaded_market = load_marketplace(read_known()["team-tools"])
    listed = {p.name for p in loaded_market.plugins}
    assert not listed & {"up", "deep", "absolute", "home"}
    for name in ("up", "deep", "absolute", "home"):
        assert any(f"({name}): `source`" in p and "That plugin is not listed." in p for p in loaded_market.problems)
    with pytest.raises(PluginError) as refused:
        install("linked@team-tools")
    assert "its source ./plugins/linked leads to" in str(refused.value)
    assert "outside the marketplace folder" in str(refused.value)
    assert not plugin_cache_dir("linked@team-tools").exists()


def _folder_enables(project: Path, plugin_id: str) -> None:
    (project / ".claude").mkdir(exist_ok=True)
    (project / ".claude" / "settings.json").write_text(json.dumps({"enabledPlugins": {plugin_id: True}}))


@pytest.mark.parametrize("trusted", [False, True])
def test_a_folder_never_turns_back_on_a_plugin_the_user_turned_off(market: Path, project: Path, trusted: bool) -> None:
    add_marketplace(parse_source(str(market), project))
    install("guard@team-tools")
    set_enabled("guard@team-tools", False, project, load_settings(project))  # the user turns it off
    _folder_enables(project, "guard@team-tools")
    if trusted:
        trust_folder(project)
    loaded = load_settings(project)
    active = resolve(project, loaded)
    assert active.plugins == [] and active.hooks() == []
    assert any(p.startswith("Plugin guard@team-tools stays off: you turned it off in ") for p in active.problems)
    items, _ = folder_plugin_items(loaded)
    assert [text for text, _, _ in items] == [
        "guard@team-tools: asked for, but you turned it off, so it stays off (agent-tui plugin enable turns it on)"
    ]
    set_enabled("guard@team-tools", True, project, loaded)  # the user's own choice turns it on
    assert [p.plugin_id for p in resolve(project, load_settings(project)).plugins] == ["guard@team-tools"]


EVIL = '/tmp/it\'s a "dir" $(touch PWNED) `touch PWNED` ; touch PWNED \\'


@pytest.mark.parametrize(
    "command",
    [
        "printf %s ${CLAUDE_PLUGIN_ROOT}",
        'printf %s "${CLAUDE_PLUGIN_ROOT}"',
        "printf %s '${CLAUDE_PLUGIN_ROOT}'",
        'printf %s "$(printf %s ${CLAUDE_PLUGIN_ROOT})"',
        'printf %s "$(printf %s "${CLAUDE_PLUGIN_ROOT}")"',
        'printf %s "`printf %s ${CLAUDE_PLUGIN_ROOT}`"',
        'printf %s "$( (printf %s ${CLAUDE_PLUGIN_ROOT}) )"',
    ],
)
def test_a_path_put_into_a_shell_command_is_one_word_that_never_runs(tmp_path: Path, command: str) -> None:
    quoted = substitute_quoted(command, {"CLAUDE_PLUGIN_ROOT": EVIL})
    done = subprocess.run(["/bin/sh", "-c", quoted], cwd=tmp_path, capture_output=True, text=True, check=True)
    assert done.stdout == EVIL
    assert not (tmp_path / "PWNED").exists()
    assert substitute_quoted(command, {"CLAUDE_PLUGIN_ROOT": "/plain/path"}) == command.replace(
        "${CLAUDE_PLUGIN_ROOT}", "/plain/path"
    )


def test_a_plugin_hook_runs_from_a_data_folder_with_shell_characters(
    market: Path, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tmp_path / "da ta;touch PWNED;$(touch PWNED)"
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    add_marketplace(parse_source(str(market), project))
    install("guard@team-tools")
    set_enabled("guard@team-tools", True, project, load_settings(project))
    hook = resolve(project, load_settings(project)).hooks()[0]
    done = subprocess.run(["/bin/sh", "-c", hook.command], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("guard-hook-fired")
    assert not (tmp_path / "PWNED").exists()


def test_a_commands_shell_line_gets_the_project_folder_quoted_and_its_prose_as_it_is(tmp_path: Path) -> None:
    from tui.hooks.commands import build_command
    from tui.hooks.expand import shell_commands, substitute_variables

    body = "Work in ${CLAUDE_PROJECT_DIR}.\n\n!`ls ${CLAUDE_PROJECT_DIR}`\n"
    command = build_command("x", tmp_path / "x.md", "project", {}, body)
    project = Path("/tmp/p;touch PWNED")
    text = substitute_variables(body, command, project, "s")
    assert "Work in /tmp/p;touch PWNED." in text
    assert shell_commands(text) == ["ls '/tmp/p;touch PWNED'"]
