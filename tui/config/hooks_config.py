"""The `hooks` blocks of settings files, read into one list of handlers with the file each came from.

Claude Code's shape, in JSON or TOML: `hooks.<Event>` is a list of matcher groups
`{matcher, hooks: [{type: "command", command, timeout}]}`. Lists merge across files; an
identical command runs once per event. A malformed part is one problem naming the file, the
line and the key, and the rest of the block still counts. Pure parsing: `tui.config.settings` reads the
blocks with it and `tui.hooks` runs what it finds (`tui.hooks.config` names the same things).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tui.config.hook_matcher import compile_matcher, matches
from tui.config.settings_schema import find_line

#: every event agent-tui fires, with the input field its matcher runs against (None: no matcher)
EVENTS: dict[str, str | None] = {
    "PreToolUse": "tool_name",
    "PostToolUse": "tool_name",
    "PostToolUseFailure": "tool_name",
    "PermissionRequest": "tool_name",
    "UserPromptSubmit": None,
    "Notification": "notification_type",
    "Stop": None,
    "SubagentStop": "agent_type",
    "PreCompact": "trigger",
    "SessionStart": "source",
    "SessionEnd": "reason",
}

DEFAULT_TIMEOUT_S = 60.0
#: Claude Code events agent-tui does not fire: their hooks are named as ignored, not as typos
OTHER_CC_EVENTS = (
    "Setup",
    "UserPromptExpansion",
    "PermissionDenied",
    "PostToolBatch",
    "SubagentStart",
    "StopFailure",
    "PostCompact",
    "MessageDisplay",
    "TaskCreated",
    "TaskCompleted",
    "TeammateIdle",
    "ConfigChange",
    "InstructionsLoaded",
    "CwdChanged",
    "DirectoryAdded",
    "FileChanged",
    "WorktreeCreate",
    "WorktreeRemove",
    "Elicitation",
    "ElicitationResult",
)


@dataclass(frozen=True)
class HookSpec:
    """One command handler: the event and matcher it answers, and the file it came from."""

    event: str
    matcher: str | None
    command: str
    timeout: float
    source: Path
    project: bool
    status_message: str | None = None
    #: `async: true`: runs in the background; its decisions are ignored (as Claude Code)
    background: bool = False
    #: the Agent SDK's callback id (a Python function in the SDK program): run by `HookConfig.invoke`, not a shell
    callback: str | None = None
    #: the plugin it comes from (`name@marketplace`) and that plugin's folder (`CLAUDE_PLUGIN_ROOT` in its env)
    plugin: str = ""
    plugin_root: str = ""

    @property
    def origin(self) -> str:
        """Where it comes from, for sentences and the inspector: the file, or the plugin and its file."""
        return f"plugin {self.plugin}, {self.source}" if self.plugin else str(self.source)

    @property
    def key(self) -> str:
        """Identity for dedup across files and for disabling it in /hooks."""
        return f"{self.event}\0{self.matcher or ''}\0{self.command}"


@dataclass
class HookConfig:
    """Every hook read at start, the trust that gates the folder's own, and those disabled for this run."""

    hooks: list[HookSpec]
    trusted: bool = False
    disabled: set[str] = field(default_factory=set)
    #: runs a callback hook (HookSpec.callback) and fills in its run as a command's would be (tui/sdk_control)
    invoke: Callable[[Any, Any], None] | None = None

    def for_event(self, event: str, value: str | None) -> list[HookSpec]:
        """The handlers that run for `event` (matched on `value`): trusted, enabled, each command once."""
        chosen: dict[str, HookSpec] = {}
        for spec in self.hooks:
            if spec.event != event or spec.command in chosen or spec.key in self.disabled:
                continue
            if spec.project and not self.trusted:
                continue
            if EVENTS.get(event) is not None and not matches(spec.matcher, value):
                continue
            chosen[spec.command] = spec
        return list(chosen.values())

    def has(self, event: str) -> bool:
        """Whether any hook could run for `event` (cheap check before building its input)."""
        return any(
            s.event == event and (self.trusted or not s.project) and s.key not in self.disabled for s in self.hooks
        )


def parse_hooks_block(path: Path, text: str, block: Any, *, project: bool) -> tuple[list[HookSpec], list[str]]:
    """The handlers of one file's `hooks` value, and one sentence per malformed part."""
    json_file = path.suffix == ".json"
    problems: list[str] = []

    def problem(key: str, message: str) -> None:
        line = find_line(text, key, json_file=json_file) or find_line(text, "hooks", json_file=json_file)
        where = f"{path}:{line}" if line else str(path)
        problems.append(f"{where}: key `{key}`: {message}")

    specs: list[HookSpec] = []
    if not isinstance(block, dict):
        problem("hooks", "expected a table of events (PreToolUse, Stop, …); the hooks of this file are ignored.")
        return specs, problems
    for event, groups in block.items():
        name = f"hooks.{event}"
        if event not in EVENTS:
            if event in OTHER_CC_EVENTS:
                problem(name, f"agent-tui does not fire `{event}`; these hooks are ignored.")
            else:
                known = ", ".join(EVENTS)
                problem(name, f"unknown hook event (known: {known}); ignored.")
            continue
        if not isinstance(groups, list):
            problem(name, "expected a list of matcher groups; ignored.")
            continue
        for group in groups:
            if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
                problem(name, "each entry needs `hooks`, a list of handlers; that entry is ignored.")
                continue
            matcher = group.get("matcher")
            if matcher is not None and not isinstance(matcher, str):
                problem(name, "`matcher` must be a string; that entry is ignored.")
                continue
            try:
                compile_matcher(matcher or "")
            except ValueError as exc:
                problem(name, f"matcher {exc}; that entry is ignored.")
                continue
            for handler in group["hooks"]:
                spec = _handler(handler, event, matcher, path, project, lambda m, name=name: problem(name, m))
                if spec is not None:
                    specs.append(spec)
    return specs, problems


def _handler(handler: Any, event: str, matcher: str | None, path: Path, project: bool, problem: Any) -> HookSpec | None:
    if not isinstance(handler, dict):
        problem("a handler must be a table with `type` and `command`; ignored.")
        return None
    kind = handler.get("type", "command")
    if kind != "command":
        problem(f"hook type `{kind}` is not supported by agent-tui (only `command`); that handler is ignored.")
        return None
    command = handler.get("command")
    if not isinstance(command, str) or not command.strip():
        problem("a command hook needs `command`, a non-empty string; that handler is ignored.")
        return None
    timeout = handler.get("timeout", DEFAULT_TIMEOUT_S)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
        problem(f"`timeout` must be a positive number of seconds; {DEFAULT_TIMEOUT_S:g} s is used.")
        timeout = DEFAULT_TIMEOUT_S
    message = handler.get("statusMessage")
    return HookSpec(
        event,
        matcher or None,
        command,
        float(timeout),
        path,
        project,
        message if isinstance(message, str) else None,
        handler.get("async") is True,
    )
