"""Settings layers, error reporting, workspace trust and the "always allow" round trip."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from tests.unit.config.fakes import TOOLS, context, tool_input
from tui.config.permissions import PermissionPolicy, next_mode
from tui.config.rule_files import SettingsWriteError
from tui.config.settings import (
    build_policy,
    is_trusted,
    load_settings,
    save_user_setting,
    trust_folder,
    user_config_dir,
)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return tmp_path


@pytest.fixture
def proj(home: Path) -> Path:
    path = home / "proj"
    (path / ".agent-tui").mkdir(parents=True)
    return path


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def user_file() -> Path:
    return user_config_dir() / "settings.toml"


def decide(policy: PermissionPolicy, proj: Path, tool: str, arg: str) -> str:
    return policy.check(TOOLS[tool], tool_input(tool, arg), context(proj)).decision


def test_layers_merge_later_wins_and_rule_lists_merge(proj: Path) -> None:
    write(
        user_file(),
        'model = "user-model"\nmax_tokens = 1000\ntheme = "t-user"\n'
        f'trusted_folders = ["{proj}"]\n[permissions]\nallow = ["Bash(make *)"]\n',
    )
    write(
        proj / ".agent-tui/settings.toml",
        'model = "project-model"\nmax_turns = 7\n[permissions]\nallow = ["Bash(npm test *)"]\n',
    )
    write(proj / ".agent-tui/settings.local.toml", 'max_turns = 9\n[permissions]\ndeny = ["Bash(rm *)"]\n')
    write(
        proj / ".claude/settings.json",
        json.dumps({"permissions": {"allow": ["Bash(pytest *)"], "deny": ["Read(./.env)"]}, "hooks": {}}),
    )
    loaded = load_settings(proj, {"max_tokens": 2000, "model": None})
    s = loaded.settings
    assert loaded.problems == []
    assert (s.model, s.max_tokens, s.max_turns, s.theme) == ("project-model", 2000, 9, "t-user")
    assert sorted(s.allow) == ["Bash(make *)", "Bash(npm test *)", "Bash(pytest *)"]
    assert sorted(s.deny) == ["Bash(rm *)", "Read(./.env)"]
    sources = {r.rule: r.source for r in loaded.rules}
    assert sources["Bash(pytest *)"].endswith(".claude/settings.json")
    assert sources["Bash(rm *)"].endswith("settings.local.toml")


def test_broken_toml_names_path_line_and_column_and_loading_goes_on(proj: Path) -> None:
    broken = write(proj / ".agent-tui/settings.toml", 'model = "ok"\nmax_tokens = \n')
    write(proj / ".agent-tui/settings.local.toml", 'theme = "local-theme"\n')
    loaded = load_settings(proj)
    assert len(loaded.problems) == 1
    assert loaded.problems[0].startswith(f"{broken}:2:")
    assert loaded.settings.theme == "local-theme"
    assert loaded.settings.model != "ok"  # the broken file was skipped as a whole


def test_wrong_type_and_unknown_key_report_the_line_and_keep_the_rest(proj: Path) -> None:
    path = write(
        proj / ".agent-tui/settings.toml",
        '# comment\nmodel = "m"\nmax_tokens = "big"\nmax_tokenz = 5\n[permissions]\nallow = "Bash"\ndeny = ["Bash(rm *)"]\n',
    )
    loaded = load_settings(proj)
    assert f"{path}:3: key `max_tokens`: expected an integer, got a string; ignored." in loaded.problems
    assert any(
        p.startswith(f"{path}:4: key `max_tokenz`: unknown key (did you mean `max_tokens`?)") for p in loaded.problems
    )
    assert any(p.startswith(f"{path}:6: key `permissions.allow`: expected a list of strings") for p in loaded.problems)
    assert loaded.settings.model == "m" and loaded.settings.max_tokens is None
    assert loaded.settings.deny == ["Bash(rm *)"]


def test_bad_mode_bad_rule_and_broken_json_are_reported(proj: Path) -> None:
    write(proj / ".agent-tui/settings.toml", 'permission_mode = "yolo"\n[permissions]\nask = ["Bash(ls"]\n')
    bad_json = write(proj / ".claude/settings.local.json", '{\n  "permissions": {\n    "allow": [,]\n  }\n}\n')
    problems = load_settings(proj).problems
    assert any(
        "key `permission_mode`: expected one of default, acceptEdits, plan, bypassPermissions, got `yolo`" in p
        for p in problems
    )
    assert any("`Bash(ls` is not a rule" in p for p in problems)
    assert any(p.startswith(f"{bad_json}:3:") for p in problems)


def test_unreadable_user_file_never_raises(proj: Path) -> None:
    user_file().parent.mkdir(parents=True)
    user_file().mkdir()  # a folder where the file should be
    loaded = load_settings(proj)
    assert loaded.settings.model  # defaults
    problems = load_settings(proj).problems  # a folder where the file should be is said, then skipped
    assert problems == [
        f"{user_file()} is a directory, not a regular file; agent-tui does not read it. The file was skipped."
    ]


def test_untrusted_folder_cannot_allow_itself_anything(proj: Path) -> None:
    write(proj / ".agent-tui/settings.toml", '[permissions]\nallow = ["Bash", "Edit"]\ndeny = ["Bash(rm *)"]\n')
    write(
        proj / ".claude/settings.json",
        json.dumps({"permissions": {"allow": ["Bash(curl *)"], "ask": ["Read"], "defaultMode": "bypassPermissions"}}),
    )
    write(proj / ".agent-tui/settings.local.toml", 'permission_mode = "acceptEdits"\ntrusted_folders = ["/"]\n')
    loaded = load_settings(proj)
    assert not loaded.trusted
    assert loaded.settings.permission_mode == "default"
    assert any("ignored until you trust this folder" in p for p in loaded.problems)
    assert any("only the user settings may set this" in p for p in loaded.problems)
    policy = build_policy(loaded, proj, None, [], [])
    assert decide(policy, proj, "Bash", "npm install") == "ask"
    assert decide(policy, proj, "Bash", "curl http://x") == "ask"
    assert decide(policy, proj, "Edit", "a.py") == "ask"
    assert decide(policy, proj, "Bash", "rm x") == "deny"  # its deny rules still count
    assert decide(policy, proj, "Read", "a.py") == "ask"  # and its ask rules
    assert [r.counts for r in loaded.rules if r.kind == "allow"] == [False, False, False]


def test_trusting_the_folder_makes_its_allow_rules_count(proj: Path) -> None:
    write(proj / ".agent-tui/settings.toml", '[permissions]\nallow = ["Bash(npm install)"]\n')
    assert trust_folder(proj) == user_file()
    loaded = load_settings(proj)
    assert loaded.trusted and is_trusted(proj / "sub", loaded.settings)
    assert decide(build_policy(loaded, proj, None, [], []), proj, "Bash", "npm install") == "allow"


def test_cli_rules_always_count_and_disallowed_wins(proj: Path) -> None:
    loaded = load_settings(proj)
    policy = build_policy(loaded, proj, "default", ["Bash(npm *)", "Edit"], ["Bash(npm publish *)"])
    assert decide(policy, proj, "Bash", "npm install") == "allow"
    assert decide(policy, proj, "Bash", "npm publish --tag x") == "deny"
    assert decide(policy, proj, "Edit", "a.py") == "allow"
    assert policy.check(TOOLS["Bash"], {"command": "npm ci"}, context(proj)).source == "--allowedTools"


def test_always_allow_round_trip_survives_a_restart(proj: Path) -> None:
    policy = build_policy(load_settings(proj), proj, None, [], [])
    call = tool_input("Bash", "npm run test -- --watch")
    assert decide(policy, proj, "Bash", call["command"]) == "ask"
    rule = policy.suggest_rule(TOOLS["Bash"], call, context(proj))
    assert rule == "Bash(npm run test *)"
    saved = policy.save_rule(rule, "user")
    assert saved == user_file()
    assert tomllib.loads(saved.read_text())["permissions"]["allow"] == [rule]
    assert decide(policy, proj, "Bash", "npm run test") == "allow"  # active at once
    fresh = build_policy(load_settings(proj), proj, None, [], [])  # the user's file counts in any folder
    assert decide(fresh, proj, "Bash", "npm run test --coverage") == "allow"
    assert decide(fresh, proj, "Bash", "npm run build") == "ask"
    policy.save_rule(rule, "user")
    assert tomllib.loads(saved.read_text())["permissions"]["allow"] == [rule]  # no duplicates


def _files(*roots: Path) -> dict[str, str]:
    return {str(p): p.read_text() for root in roots for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize(
    "destination, where",
    [("local", ".agent-tui/settings.local.toml"), ("project", ".agent-tui/settings.toml"), ("user", None)],
)
def test_always_allow_writes_exactly_the_file_chosen_and_nothing_else(
    home: Path, proj: Path, destination: str, where: str | None
) -> None:
    write(proj / ".agent-tui/settings.toml", 'model = "shared"\n')
    before = _files(home)
    policy = build_policy(load_settings(proj), proj, None, [], [])
    saved = policy.save_rule("Bash(make *)", destination)  # type: ignore[arg-type]
    expected = proj / where if where else user_file()
    assert saved == expected
    after = _files(home)
    changed = {path for path in after if before.get(path) != after[path]}
    assert changed == {str(expected)}
    assert tomllib.loads(expected.read_text())["permissions"]["allow"] == ["Bash(make *)"]
    assert "projects" not in tomllib.loads(after.get(str(user_file()), ""))
    assert decide(policy, proj, "Bash", "make all") == "allow"  # and it holds at once


def test_a_project_path_rule_saved_for_the_user_is_written_absolute(proj: Path) -> None:
    policy = PermissionPolicy(project_dir=proj)
    policy.save_rule("Edit(/src/**)", "user")
    assert tomllib.loads(user_file().read_text())["permissions"]["allow"] == [f"Edit(/{proj.as_posix()}/src/**)"]
    fresh = build_policy(load_settings(proj), proj, None, [], [])
    assert decide(fresh, proj, "Edit", "src/a.py") == "allow"
    assert decide(fresh, proj, "Edit", "b.py") == "ask"


def test_a_project_file_rule_in_an_untrusted_folder_holds_for_the_session(proj: Path) -> None:
    policy = PermissionPolicy(project_dir=proj, trusted=False)
    assert policy.save_rule("Bash(make *)", "project") == proj / ".agent-tui/settings.toml"
    assert decide(policy, proj, "Bash", "make all") == "allow"
    assert "Bash(make *)" in policy.session_allow


def test_save_rule_keeps_other_keys_of_the_local_file(proj: Path) -> None:
    write(proj / ".agent-tui/settings.local.toml", 'theme = "x"\n[permissions]\ndeny = ["Bash(rm *)"]\n')
    PermissionPolicy(project_dir=proj).save_rule("Edit(/src/**)")
    data = tomllib.loads((proj / ".agent-tui/settings.local.toml").read_text())
    assert data == {"theme": "x", "permissions": {"deny": ["Bash(rm *)"], "allow": ["Edit(/src/**)"]}}


def test_save_user_setting_preserves_keys_and_refuses_bad_values(proj: Path) -> None:
    write(user_file(), 'model = "m"\n[permissions]\nallow = ["Bash(ls *)"]\n')
    save_user_setting("theme", "agent-tui-light")
    data = tomllib.loads(user_file().read_text())
    assert data == {"model": "m", "theme": "agent-tui-light", "permissions": {"allow": ["Bash(ls *)"]}}
    with pytest.raises(SettingsWriteError, match="max_tokens"):
        save_user_setting("max_tokens", "lots")
    with pytest.raises(SettingsWriteError, match="did you mean `theme`"):
        save_user_setting("themes", "x")
    write(user_file(), "model = \n")
    with pytest.raises(SettingsWriteError, match="does not parse"):
        save_user_setting("theme", "x")
    assert user_file().read_text() == "model = \n"  # a broken file is never overwritten


def test_plan_mode_writes_nothing(proj: Path) -> None:
    policy = build_policy(load_settings(proj), proj, "plan", ["Bash", "Edit"], [])
    verdict = policy.check(TOOLS["Write"], tool_input("Write", "a.py"), context(proj))
    assert verdict.decision == "deny" and "Plan mode" in verdict.reason and "plan" in verdict.reason
    assert decide(policy, proj, "Bash", "touch a.py") == "deny"
    assert decide(policy, proj, "Bash", "git log") == "allow"
    assert decide(policy, proj, "Read", "a.py") == "allow"


def test_mode_cycle() -> None:
    assert next_mode("default", False) == "acceptEdits"
    assert next_mode("acceptEdits", False) == "plan"
    assert next_mode("plan", False) == "default"
    assert next_mode("plan", True) == "bypassPermissions"
    assert next_mode("bypassPermissions", True) == "default"
    assert next_mode("bypassPermissions", False) == "default"


@pytest.mark.parametrize(
    ("tool", "arg", "rule"),
    [
        ("Bash", "npm run test -- --watch", "Bash(npm run test *)"),
        ("Bash", "git push origin main", "Bash(git push *)"),
        ("Bash", "cargo test --release", "Bash(cargo test *)"),
        ("Bash", "python -m pytest -q", "Bash(python -m pytest *)"),
        ("Bash", "rm -rf build", "Bash(rm *)"),
        ("Bash", "ls && FOO=1 timeout 5 make build", "Bash(make build *)"),
        ("Bash", "echo hi > notes/out.txt", "Edit(/notes/**)"),
        ("Write", "src/app/main.py", "Edit(/src/app/**)"),
        ("Edit", "README.md", "Edit"),
        ("WebFetch", "https://docs.python.org/3/", "WebFetch(domain:docs.python.org)"),
        ("TodoWrite", "", "TodoWrite"),
    ],
)
def test_suggest_rule(proj: Path, tool: str, arg: str, rule: str) -> None:
    policy = PermissionPolicy(project_dir=proj)
    assert policy.suggest_rule(TOOLS[tool], tool_input(tool, arg), context(proj)) == rule


def test_session_rule_and_malformed_rules(proj: Path) -> None:
    policy = PermissionPolicy(project_dir=proj, allow=["Bash(ls"])
    assert decide(policy, proj, "Bash", "npm ci") == "ask"
    assert policy.problems and "not a rule" in policy.problems[0]
    policy.add_session_rule("Bash(npm ci)")
    assert decide(policy, proj, "Bash", "npm ci") == "allow"
    with pytest.raises(ValueError):
        policy.add_session_rule("Bash(npm")
    with pytest.raises(ValueError, match="permission mode"):
        PermissionPolicy(mode="yolo")


def test_subagent_limits_are_settings_and_a_bad_value_is_named(proj: Path) -> None:
    write(proj / ".agent-tui" / "settings.toml", 'max_parallel_subagents = 2\nmax_subagent_depth = "deep"\n')
    loaded = load_settings(proj)
    assert loaded.settings.max_parallel_subagents == 2 and loaded.settings.max_subagent_depth == 3
    assert any("max_subagent_depth" in p for p in loaded.problems)


def test_claude_code_keys_agent_tui_does_not_use_are_named_once_per_file(tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    write(
        proj / ".claude/settings.json",
        json.dumps(
            {
                "$schema": "https://json.schemastore.org/claude-code-settings.json",
                "permissions": {"deny": ["Read(.env)"]},
                "enabledPlugins": {"x@market": True},
                "plansDirectory": "plans",
                "outputStyle": "Explanatory",
                "enabledMcpjsonServers": ["a"],
            },
            indent=1,
        ),
    )
    write(proj / ".claude/settings.local.json", json.dumps({"env": {"A": "1"}}))
    problems = [p for p in load_settings(proj).problems if "not used by agent-tui" in p]
    assert problems == [
        f"{proj / '.claude/settings.json'}:11: not used by agent-tui: plansDirectory, outputStyle.",
        f"{proj / '.claude/settings.local.json'}:1: not used by agent-tui: env.",
    ]


def test_the_background_output_limit_is_a_setting(tmp_path, monkeypatch) -> None:
    from tui.config.settings import load_settings

    project = tmp_path / "p"
    (project / ".agent-tui").mkdir(parents=True)
    assert load_settings(project).settings.background_output_limit_mb == 256
    (project / ".agent-tui" / "settings.toml").write_text("background_output_limit_mb = 16\n")
    assert load_settings(project).settings.background_output_limit_mb == 16
    (project / ".agent-tui" / "settings.toml").write_text('background_output_limit_mb = "big"\n')
    loaded = load_settings(project)
    assert loaded.settings.background_output_limit_mb == 256
    assert any("background_output_limit_mb" in p and "expected an integer" in p for p in loaded.problems)


def test_claude_codes_effort_level_is_the_effort_setting(proj: Path) -> None:
    """2.1.332 runs a project's `effortLevel` (and tells hooks so); agent-tui named it unused."""
    write(proj / ".claude/settings.json", json.dumps({"effortLevel": "low"}))
    loaded = load_settings(proj)
    assert loaded.settings.effort == "low"
    assert not [p for p in loaded.problems if "effortLevel" in p]
    write(proj / ".agent-tui" / "settings.toml", 'effort = "max"\n')  # `max` is for one session only
    loaded = load_settings(proj)
    assert loaded.settings.effort == "low"
    assert any("key `effort`: expected one of low, medium, high, xhigh" in p for p in loaded.problems)
