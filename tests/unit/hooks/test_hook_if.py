"""A hook's `if` condition: a permission rule the tool call must match, as Claude Code reads it since 2.1.85."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tui.config.hook_if import condition_matches, parse_condition
from tui.hooks.config import HookConfig, parse_hooks_block


def _matches(rule: str, tool: str, tool_input: dict, project: Path) -> bool:
    return condition_matches(parse_condition(rule), tool, tool_input, project)


@pytest.mark.parametrize(
    ("command", "runs"),
    [
        ("git push", True),
        ("git push origin main", True),
        ("ls && git push origin main", True),
        ("FOO=1 git push", True),
        ("env FOO=1 git push --force", True),
        ("echo hi", False),
        ("git status", False),
        ("echo 'git push'", False),
        ("git pushx", False),
    ],
)
def test_a_bash_condition_matches_any_simple_command_in_any_form(tmp_path: Path, command: str, runs: bool) -> None:
    assert _matches("Bash(git push *)", "Bash", {"command": command}, tmp_path) is runs


@pytest.mark.parametrize(
    ("rule", "tool", "path", "runs"),
    [
        ("Read(.env)", "Read", "{p}/.env", True),
        ("Read(.env)", "Read", ".env", True),
        ("Read(.env)", "Read", "{p}/a.txt", False),
        ("Edit(src/**)", "Edit", "{p}/src/deep/m.py", True),
        ("Edit(src/**)", "Write", "{p}/src/m.py", True),
        ("Edit(src/**)", "Edit", "{p}/docs/m.md", False),
        ("Edit(src/**)", "Read", "{p}/src/m.py", False),
        ("Read(~/.ssh/**)", "Read", "~/.ssh/id_ed25519", True),
        ("Read(~/.ssh/**)", "Read", "{p}/.ssh/id", False),
    ],
)
def test_path_conditions_match_the_file_of_the_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rule: str, tool: str, path: str, runs: bool
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    project = tmp_path / "p"
    assert _matches(rule, tool, {"file_path": path.format(p=project)}, project) is runs


def test_other_tools_match_by_name_and_mcp_server(tmp_path: Path) -> None:
    assert _matches("mcp__github", "mcp__github__create_issue", {"title": "x"}, tmp_path)
    assert _matches("mcp__github__create_issue", "mcp__github__create_issue", {}, tmp_path)
    assert not _matches("mcp__github__create_issue", "mcp__github__list", {}, tmp_path)
    assert _matches("WebFetch(domain:example.com)", "WebFetch", {"url": "https://example.com/x"}, tmp_path)
    assert not _matches("Bash", "Read", {"file_path": "x"}, tmp_path)


def _config(tmp_path: Path, block: dict) -> tuple[HookConfig, list[str]]:
    path = tmp_path / "settings.json"
    text = json.dumps({"hooks": block}, indent=2)
    path.write_text(text)
    specs, problems = parse_hooks_block(path, text, block, project=False)
    return HookConfig(specs, trusted=True), problems


def test_the_config_runs_a_hook_only_when_its_condition_holds(tmp_path: Path) -> None:
    handler = {"type": "command", "command": "exit 2", "if": "Bash(git push *)"}
    config, problems = _config(tmp_path, {"PreToolUse": [{"matcher": "Bash", "hooks": [handler]}]})
    assert problems == []
    assert config.hooks[0].condition == "Bash(git push *)"
    assert config.for_event("PreToolUse", "Bash", {"command": "echo hi"}, tmp_path) == []
    assert len(config.for_event("PreToolUse", "Bash", {"command": "ls && git push"}, tmp_path)) == 1


def test_a_condition_on_a_non_tool_event_or_not_a_rule_is_one_sentence_and_never_runs(tmp_path: Path) -> None:
    config, problems = _config(
        tmp_path,
        {
            "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "a", "if": "Bash(git *)"}]}],
            "PreToolUse": [
                {"hooks": [{"type": "command", "command": "b", "if": "Bash(git push"}]},
                {"hooks": [{"type": "command", "command": "c", "if": ["Bash"]}]},
            ],
        },
    )
    assert config.hooks == []
    assert len(problems) == 3
    assert "only applies to tool events" in problems[0] and "UserPromptSubmit" in problems[0]
    assert "`Bash(git push` is not a rule" in problems[1] and "never runs" in problems[1]
    assert "must be a permission rule in a string" in problems[2]


def test_newer_claude_code_events_are_named_as_not_fired_not_as_typos(tmp_path: Path) -> None:
    _, problems = _config(tmp_path, {e: [] for e in ("PreModelSwitch", "PostModelSwitch", "PreSkillShellCommand")})
    assert all("does not fire" in p for p in problems) and len(problems) == 3


def test_the_condition_and_how_it_runs_show_where_hooks_are_listed(tmp_path: Path) -> None:
    from tui.trust.inventory import folder_inventory

    handlers = [
        {"type": "command", "command": "./no-push.sh", "if": "Bash(git push *)"},
        {"type": "command", "command": "./lint.sh", "asyncRewake": True, "once": True},
    ]
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text(
        json.dumps({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": handlers}]}})
    )
    texts = [item.text for item in folder_inventory(tmp_path).of("hooks")]
    assert texts == [
        "PreToolUse Bash if Bash(git push *): ./no-push.sh",
        "PreToolUse Bash · asyncRewake · once: ./lint.sh",
    ]


def test_handler_fields_since_claude_code_2_1_197_are_read_or_named(tmp_path: Path) -> None:
    handlers = [
        {"type": "command", "command": "/bin/echo", "args": ["a"], "onFailure": "block", "once": True},
        {"type": "command", "command": "x", "shell": "powershell"},
        {"type": "command", "command": "x", "args": "a b"},
        {"type": "prompt", "prompt": "Is it safe? $ARGUMENTS"},
    ]
    config, problems = _config(tmp_path, {"PreToolUse": [{"hooks": handlers}]})
    [spec] = config.hooks
    assert (spec.args, spec.block_on_failure, spec.once) == (("a",), True, True)
    assert len(problems) == 3
    assert "`shell: powershell` is not supported" in problems[0]
    assert "`args` must be a list of strings" in problems[1]
    assert "hook type `prompt` is not supported by agent-tui (a model judges the event)" in problems[2]
