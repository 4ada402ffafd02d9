"""Plugins: marketplaces from a folder and from git, installing, the settings keys, and bad input said once."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.fixtures import bare_git_market, copy_plugin_market
from tui.config.settings import load_settings
from tui.hooks.commands import load_catalog
from tui.plugins.active import resolve
from tui.plugins.install import install, set_enabled, uninstall
from tui.plugins.marketplaces import add_marketplace, remove_marketplace, views
from tui.plugins.sources import parse_source
from tui.plugins.store import PluginError, plugin_cache_dir, read_installed, read_known


@pytest.fixture
def market(tmp_path: Path) -> Path:
    return copy_plugin_market(tmp_path)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


def _install(project: Path, *names: str) -> None:
    loaded = load_settings(project)
    for name in names:
        install(f"{name}@team-tools")
        set_enabled(f"{name}@team-tools", True, project, loaded)


def test_a_folder_marketplace_lists_its_plugins_and_is_read_where_it_is(market: Path, project: Path) -> None:
    added = add_marketplace(parse_source(str(market), project))
    assert added.name == "team-tools" and added.owner == "Fixture Team"
    assert [p.name for p in added.plugins][:3] == ["toolkit", "guard", "kitchen"]
    known = read_known()["team-tools"]
    assert known.source == {"source": "directory", "path": str(market)} and known.install_location == str(market)
    assert [v.name for v in views()] == ["team-tools"]


def test_a_git_marketplace_is_cloned_from_a_local_bare_repository(tmp_path: Path, project: Path) -> None:
    bare = bare_git_market(tmp_path)
    source = parse_source(str(bare), project)
    assert source == {"source": "git", "url": bare.as_uri()}
    market = add_marketplace(source)
    clone = Path(read_known()["team-tools"].install_location)
    assert clone.name == "team-tools" and (clone / ".git").is_dir() and market.root == clone
    done = install("guard@team-tools")
    script = Path(done.record.install_path) / "hooks" / "mark.sh"
    assert os.access(script, os.X_OK)  # the executable bit survives the clone and the copy
    remove_marketplace("team-tools")
    assert not clone.exists() and read_known() == {}


def test_typed_sources_follow_claude_code(project: Path) -> None:
    assert parse_source("owner/repo", project) == {"source": "github", "repo": "owner/repo"}
    assert parse_source("https://github.com/owner/repo", project) == {
        "source": "git",
        "url": "https://github.com/owner/repo.git",
    }
    assert parse_source("git@host:team/x.git#v1", project) == {
        "source": "git",
        "url": "git@host:team/x.git",
        "ref": "v1",
    }
    with pytest.raises(PluginError, match="does not exist"):
        parse_source("./nowhere", project)


def test_installing_copies_the_plugin_records_it_and_turns_it_on(market: Path, project: Path) -> None:
    add_marketplace(parse_source(str(market), project))
    _install(project, "toolkit")
    record = read_installed()["toolkit@team-tools"]
    assert record.version == "1.0.0" and record.user_installed
    assert Path(record.install_path) == plugin_cache_dir("toolkit@team-tools")
    loaded = load_settings(project)
    assert loaded.problems == [] and [c.plugin_id for c in loaded.plugin_choices] == ["toolkit@team-tools"]
    active = resolve(project, loaded)
    catalog = load_catalog(project, active)
    greet = catalog.get("toolkit:greet")
    assert greet is not None and greet.plugin == "toolkit@team-tools" and greet.label == "plugin toolkit command"
    assert catalog.get("greet") is greet  # the short name works while no other command has it
    assert catalog.get("toolkit:release-notes").kind == "skill"
    assert [a.name for a in active.agents(trusted=False)] == ["toolkit:reviewer"]
    uninstall("toolkit@team-tools")
    assert not plugin_cache_dir("toolkit@team-tools").exists()
    assert load_settings(project).plugin_choices == []


def test_hooks_get_the_plugin_root_and_mcp_servers_a_prefixed_name(market: Path, project: Path) -> None:
    add_marketplace(parse_source(str(market), project))
    _install(project, "guard", "kitchen")
    active = resolve(project, load_settings(project))
    root = str(plugin_cache_dir("guard@team-tools"))
    assert [(h.event, h.matcher, h.command) for h in active.hooks()] == [
        ("UserPromptSubmit", None, f"{root}/hooks/mark.sh"),
        ("PreToolUse", "Bash", f"{root}/hooks/mark.sh"),
    ]
    assert all(h.plugin == "guard@team-tools" and not h.project for h in active.hooks())
    servers, held = active.mcp_servers(trusted=False)
    assert [s.name for s in servers] == ["plugin_kitchen_kitchen"] and held == {}
    kitchen = str(plugin_cache_dir("kitchen@team-tools"))
    assert servers[0].args == (f"{kitchen}/server.py",) and servers[0].env["CLAUDE_PLUGIN_ROOT"] == kitchen


def test_bad_plugins_are_one_sentence_each_and_the_others_load(market: Path, project: Path) -> None:
    add_marketplace(parse_source(str(market), project))
    with pytest.raises(PluginError) as broken:
        install("broken@team-tools")
    assert str(broken.value).startswith("The plugin broken@team-tools cannot be installed: plugin manifest: ")
    assert "plugin.json:1:19 is not valid JSON (Expecting ',' delimiter)" in str(broken.value)
    with pytest.raises(PluginError, match=r"its folder \./plugins/gone does not exist in the marketplace team-tools"):
        install("gone@team-tools")
    _install(project, "toolkit", "twin", "lazy-hook", "guard")
    # broken after it was installed, and a plugin whose folder was deleted
    (plugin_cache_dir("guard@team-tools") / ".claude-plugin" / "plugin.json").write_text("{nope")
    active = resolve(project, load_settings(project))
    assert sorted(p.plugin_id for p in active.plugins) == [
        "lazy-hook@team-tools",
        "toolkit@team-tools",
        "twin@team-tools",
    ]
    problems = active.problems
    assert len(problems) == 3, problems
    assert problems[0].startswith(
        "Plugin lazy-hook@team-tools: its UserPromptSubmit hook "
        "`${CLAUDE_PLUGIN_ROOT}/hooks/run.sh` was skipped: its script hooks/run.sh is not "
        "executable"
    )
    assert problems[1].startswith("Plugin guard@team-tools was not loaded: plugin manifest: ")
    assert (
        problems[2] == "Plugins toolkit@team-tools and twin@team-tools both have a command /greet: type "
        "/toolkit:greet or /twin:greet."
    )
    catalog = load_catalog(project, active)
    assert catalog.get("greet") is None and catalog.get("twin:greet") and catalog.get("toolkit:status")


def test_a_missing_plugin_folder_and_a_plugin_never_installed_are_named(market: Path, project: Path) -> None:
    add_marketplace(parse_source(str(market), project))
    _install(project, "toolkit")
    import shutil

    shutil.rmtree(plugin_cache_dir("toolkit@team-tools"))
    (project / ".agent-tui").mkdir()
    (project / ".agent-tui" / "settings.local.toml").write_text('[enabled_plugins]\n"twin@team-tools" = true\n')
    active = resolve(project, load_settings(project))
    assert active.plugins == []
    assert active.problems[0].startswith("Plugin toolkit@team-tools was not loaded: its folder ")
    assert active.problems[0].endswith("is missing; reinstall it with agent-tui plugin install toolkit@team-tools.")
    assert len(active.problems) == 1  # twin: enabled by an untrusted folder: the trust question names it, no error


def test_the_settings_keys_are_read_and_checked(project: Path) -> None:
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(
        json.dumps(
            {
                "enabledPlugins": {"a@m": True, "bad id": True, "b@m": "yes"},
                "extraKnownMarketplaces": {"m": {"source": {"source": "directory", "path": "./market"}}, "x": {}},
            }
        )
    )
    loaded = load_settings(project)
    assert [(c.plugin_id, c.enabled, c.folder) for c in loaded.plugin_choices] == [("a@m", True, True)]
    assert [(m.name, m.source["path"]) for m in loaded.marketplaces] == [("m", "./market")]
    assert [p.split(": ", 1)[1] for p in loaded.problems] == [
        'key `enabledPlugins`: `bad id` is not a plugin id (write "plugin@marketplace"); ignored.',
        "key `enabledPlugins`: `b@m` must be true or false; ignored.",
        'key `extraKnownMarketplaces`: `x` needs `source = {source = "directory", path = "…"}` (or git with url, '
        "github with repo); ignored.",
    ]
    assert not any("not used by agent-tui" in p for p in loaded.problems)


def test_a_trusted_folder_installs_the_plugins_its_settings_enable(market: Path, project: Path) -> None:
    from tui.config.settings import trust_folder

    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(
        json.dumps(
            {
                "enabledPlugins": {"guard@team-tools": True},
                "extraKnownMarketplaces": {"team-tools": {"source": {"source": "directory", "path": str(market)}}},
            }
        )
    )
    untrusted = resolve(project, load_settings(project))
    assert untrusted.plugins == [] and untrusted.problems == [] and read_installed() == {}
    trust_folder(project)
    trusted = resolve(project, load_settings(project))
    assert trusted.installed_now == ["guard@team-tools"] and read_known()["team-tools"]
    plugin = trusted.get("guard@team-tools")
    assert plugin.gated and not read_installed()["guard@team-tools"].user_installed
    assert all(h.project for h in trusted.hooks())  # they run only while the folder is trusted


def _enable_in_folder(project: Path, market: Path, plugin_id: str, source: dict | None = None) -> None:
    (project / ".claude").mkdir(exist_ok=True)
    (project / ".claude" / "settings.json").write_text(
        json.dumps(
            {
                "enabledPlugins": {plugin_id: True},
                "extraKnownMarketplaces": {
                    "team-tools": {"source": source or {"source": "directory", "path": str(market)}}
                },
            }
        )
    )


def test_a_gated_plugin_command_loads_but_its_shell_lines_wait_for_trust(market: Path, project: Path) -> None:
    from tui.config.permissions import PermissionPolicy
    from tui.hooks.expand import ExpansionRefused, expand

    _enable_in_folder(project, market, "toolkit@team-tools")
    install("toolkit@team-tools", named=load_settings(project).marketplaces, by_user=False)  # as trusting once did
    active = resolve(project, load_settings(project))
    catalog = load_catalog(project, active)
    status = catalog.get("toolkit:status")
    assert status is not None and status.from_project and active.agents(trusted=False) == []
    assert active.mcp_servers(trusted=False) == ([], {})
    with pytest.raises(ExpansionRefused) as refused:
        expand(status, "", project_dir=project, policy=PermissionPolicy(project_dir=project, trusted=False))
    assert "comes from the plugin toolkit@team-tools, which this folder's settings enable" in str(refused.value)
    greet = expand(
        catalog.get("greet"), "Ada", project_dir=project, policy=PermissionPolicy(project_dir=project, trusted=False)
    )
    assert greet.startswith("Say hello to Ada. (This prompt came from the toolkit plugin in ")


def test_the_trust_items_name_each_hook_server_and_shell_line(tmp_path: Path, market: Path, project: Path) -> None:
    from tui.trust.inventory import folder_inventory

    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(
        json.dumps(
            {
                "enabledPlugins": {
                    "guard@team-tools": True,
                    "kitchen@team-tools": True,
                    "toolkit@team-tools": True,
                    "later@git-tools": True,
                    "formatter@nobody": True,
                },
                "extraKnownMarketplaces": {
                    "team-tools": {"source": {"source": "directory", "path": str(market)}},
                    "git-tools": {"source": {"source": "git", "url": "https://example.invalid/t.git"}},
                },
            }
        )
    )
    inventory = folder_inventory(project)
    texts = [i.text for i in inventory.of("plugins")]
    assert "guard@team-tools hook PreToolUse Bash: ${CLAUDE_PLUGIN_ROOT}/hooks/mark.sh" in texts
    assert (
        "kitchen@team-tools MCP server plugin_kitchen_kitchen: python3 ${CLAUDE_PLUGIN_ROOT}/server.py" in texts
        or any(
            t.startswith("kitchen@team-tools MCP server plugin_kitchen_kitchen: ")
            and t.endswith("${CLAUDE_PLUGIN_ROOT}/server.py")
            for t in texts
        )
    )
    assert "toolkit@team-tools /toolkit:status: !`echo plugin-shell-ran`" in texts
    assert any(
        t.startswith(
            "later@git-tools: from the marketplace git-tools (git https://example.invalid/t.git), not added yet"
        )
        for t in texts
    )
    assert not any("formatter@nobody" in t for t in texts)  # trusting could not install it: not promised
    assert inventory.summary().startswith("4 plugins")
    assert read_installed() == {} and read_known() == {}  # the question reads, it installs nothing


def test_manifests_read_as_claude_code_reads_them(tmp_path: Path) -> None:
    from tui.plugins.components import read_parts
    from tui.plugins.manifest import parse_manifest, read_manifest

    with pytest.raises(PluginError, match=r"`agents` must list agent files .* not './agents'"):
        parse_manifest({"name": "p", "agents": ["./agents"]}, "plugin.json")
    assert (
        parse_manifest({"name": "p", "agents": "./agents/a.md"}, "plugin.json").components["agents"] == "./agents/a.md"
    )
    root = tmp_path / "cache" / "tools@team"  # an installed copy without plugin.json: named by its folder
    (root / "skills" / "s1").mkdir(parents=True)
    (root / "skills" / "s1" / "SKILL.md").write_text("---\ndescription: d\n---\nx\n")
    assert read_manifest(root).name == "tools"
    (root / ".claude-plugin").mkdir()
    (root / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "tools", "skills": ["./skills/s1"]}))
    parts = read_parts("tools@team", root, read_manifest(root), gated=False)
    assert [c.name for c in parts.commands] == ["tools:s1"]  # listed and in the default folder: loaded once
