"""The hooks blocks of every settings file: merged, each with its file; malformed parts named by file and key."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tui.config.settings import load_settings
from tui.hooks.config import HookConfig, load_hook_config


def _user_settings(text: str) -> Path:
    path = Path(os.environ["XDG_CONFIG_HOME"]) / "agent-tui" / "settings.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _claude(project: Path, name: str, hooks: dict) -> Path:
    path = project / ".claude" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"hooks": hooks}, indent=2))
    return path


def _group(command: str, matcher: str | None = None, **extra: object) -> list[dict]:
    group: dict = {"hooks": [{"type": "command", "command": command, **extra}]}
    if matcher is not None:
        group["matcher"] = matcher
    return [group]


def test_every_source_is_read_with_its_file(tmp_path: Path) -> None:
    user = _user_settings('[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = "command"\ncommand = "echo user"\n')
    shared = _claude(tmp_path, "settings.json", {"PreToolUse": _group("echo shared", "Bash")})
    local = _claude(tmp_path, "settings.local.json", {"PostToolUse": _group("echo local", "Edit|Write", timeout=5)})
    ours = tmp_path / ".agent-tui" / "settings.toml"
    ours.parent.mkdir()
    ours.write_text('[[hooks.UserPromptSubmit]]\nhooks = [{ type = "command", command = "echo ours" }]\n')
    loaded = load_settings(tmp_path)
    assert loaded.problems == []
    found = {(h.event, h.command, h.source, h.project, h.timeout) for h in loaded.hooks}
    assert found == {
        ("Stop", "echo user", user, False, 60.0),
        ("PreToolUse", "echo shared", shared, True, 60.0),
        ("PostToolUse", "echo local", local, True, 5.0),
        ("UserPromptSubmit", "echo ours", ours, True, 60.0),
    }


def test_project_hooks_count_only_in_a_trusted_folder(tmp_path: Path) -> None:
    _user_settings('[[hooks.PreToolUse]]\nhooks = [{ type = "command", command = "echo user" }]\n')
    _claude(tmp_path, "settings.json", {"PreToolUse": _group("echo project")})
    config = load_hook_config(tmp_path)
    assert config is not None and not config.trusted
    assert [h.command for h in config.for_event("PreToolUse", "Bash")] == ["echo user"]
    config.trusted = True
    assert [h.command for h in config.for_event("PreToolUse", "Bash")] == ["echo user", "echo project"]


def test_an_identical_command_runs_once_and_a_disabled_one_not_at_all(tmp_path: Path) -> None:
    _claude(tmp_path, "settings.json", {"PreToolUse": _group("echo same", "Bash") + _group("echo other")})
    _claude(tmp_path, "settings.local.json", {"PreToolUse": _group("echo same", "Bash")})
    config = HookConfig(load_settings(tmp_path).hooks, trusted=True)
    specs = config.for_event("PreToolUse", "Bash")
    assert [h.command for h in specs] == ["echo same", "echo other"]
    assert [h.command for h in config.for_event("PreToolUse", "Read")] == ["echo other"]
    config.disabled.add(specs[1].key)
    assert [h.command for h in config.for_event("PreToolUse", "Read")] == []


def test_malformed_parts_are_one_sentence_each_naming_file_line_and_key(tmp_path: Path) -> None:
    path = _claude(
        tmp_path,
        "settings.json",
        {
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command"}]}],
            "PostToolUse": [{"matcher": "Bash("}],
            "Stop": "echo hi",
            "OnSave": [],
            "SubagentStart": [],
            "Notification": _group("echo ok", timeout=-1) + [{"hooks": [{"type": "http", "url": "http://x"}]}],
        },
    )
    loaded = load_settings(tmp_path)
    text = "\n".join(loaded.problems)
    assert len(loaded.problems) == 7, text
    assert all(p.startswith(f"{path}:") for p in loaded.problems)
    assert "key `hooks.PreToolUse`: a command hook needs `command`" in text
    assert "key `hooks.PostToolUse`: each entry needs `hooks`" in text
    assert "key `hooks.Stop`: expected a list of matcher groups" in text
    assert "key `hooks.OnSave`: unknown hook event" in text
    assert "agent-tui does not fire `SubagentStart`" in text
    assert "`timeout` must be a positive number" in text and "hook type `http` is not supported" in text
    assert [h.command for h in loaded.hooks] == ["echo ok"]  # the good handler still counts, with the default timeout
    assert loaded.hooks[0].timeout == 60.0


def test_a_hooks_value_that_is_no_table_is_named_and_the_rest_of_the_file_counts(tmp_path: Path) -> None:
    path = _user_settings('model = "claude-x"\nhooks = "echo hi"\n')
    loaded = load_settings(tmp_path)
    assert loaded.problems == [
        f"{path}:2: key `hooks`: expected a table of events (PreToolUse, Stop, …); the hooks of this file are ignored."
    ]
    assert loaded.settings.model == "claude-x" and loaded.hooks == []


def test_an_invalid_regex_matcher_is_named(tmp_path: Path) -> None:
    _claude(tmp_path, "settings.json", {"PreToolUse": _group("echo x", "Bash(")})
    loaded = load_settings(tmp_path)
    assert len(loaded.problems) == 1 and "matcher `Bash(` is not a valid regular expression" in loaded.problems[0]
    assert loaded.hooks == []


def test_disable_all_hooks_follows_the_layers(tmp_path: Path) -> None:
    _claude(tmp_path, "settings.json", {"Stop": _group("echo x")})
    local = tmp_path / ".claude" / "settings.local.json"
    local.write_text(json.dumps({"disableAllHooks": True}))
    assert load_settings(tmp_path).hooks_disabled_by == local and load_hook_config(tmp_path) is None
    ours = tmp_path / ".agent-tui" / "settings.local.toml"
    ours.parent.mkdir()
    ours.write_text("disableAllHooks = false\n")  # a later layer turns them back on
    assert load_hook_config(tmp_path) is not None
    ours.write_text('disableAllHooks = "yes"\n')
    assert load_settings(tmp_path).problems == [f"{ours}:1: key `disableAllHooks`: expected true or false; ignored."]
