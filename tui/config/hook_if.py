"""A hook's `if` condition (Claude Code 2.1.85): a permission rule the tool call must match for the hook to run.

`Bash(git push *)` matches a call when any simple command of it does, in any of its forms
(`ls && git push`, `FOO=1 git push`, `env FOO=1 git push`), as a deny rule would. `Read(.env)`,
`Edit(src/**)` and `Read(~/.ssh/**)` match the call's file path (and where its links lead) as
permission rules do; `Edit` covers every editing tool and `Read` the read tools. Any other tool's
specifier is matched against its main argument. Only tool events have a call: on any other
event a hook with `if` never runs, and neither does one whose `if` is not a rule (as in Claude Code).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from tui.config.bash_parse import parse_bash
from tui.config.rules import Rule, command_matches, path_matches, path_variants, target_matches, tool_matches

#: the events whose input names a tool call, so `if` can match it
TOOL_EVENTS = frozenset({"PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "PermissionDenied"})
EDIT_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})
_PATH_KEYS = ("file_path", "notebook_path", "path")
_TARGET_KEYS = ("url", "pattern", "query", "command", "skill", "subagent_type", "prompt")


def parse_condition(text: str) -> Rule:
    """The rule of an `if` value; ValueError with a sentence when it is not one."""
    return Rule.parse(text)


def condition_matches(rule: Rule, tool_name: str, tool_input: Any, project_dir: Path) -> bool:
    """Whether the call of `tool_name` with `tool_input` matches `rule` (the hook then runs)."""
    kind = "edit" if tool_name in EDIT_TOOLS else "exec" if tool_name == "Bash" else "other"
    if not tool_matches(rule, tool_name, kind, "ask"):
        return False
    if rule.specifier is None:
        return True
    args = tool_input if isinstance(tool_input, dict) else {}
    if tool_name == "Bash":
        return _command_matches(rule.specifier, str(args.get("command") or ""), project_dir)
    if rule.tool in ("Read", "Edit") or kind == "edit":
        raw = next((args[k] for k in _PATH_KEYS if isinstance(args.get(k), str) and args[k]), None)
        if raw is None:
            return False
        path = Path(os.path.expanduser(raw))
        path = path if path.is_absolute() else project_dir / path
        return any(path_matches(rule.specifier, v, project_dir, project_dir) for v in path_variants(path))
    target = next((args[k] for k in _TARGET_KEYS if isinstance(args.get(k), str)), None)
    return target_matches(rule.specifier, target)


def _command_matches(specifier: str, command: str, project_dir: Path) -> bool:
    parsed = parse_bash(command, project_dir)
    if parsed.error is not None:  # not parseable: the whole command, words joined, as a deny rule reads it
        return command_matches(specifier, " ".join(command.split()))
    for cmd in parsed.commands:
        forms = [*cmd.forms, cmd.text, " ".join(cmd.argv)]
        if any(command_matches(specifier, form) for form in forms):
            return True
    return False
