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

from tui.config.hook_if import TOOL_EVENTS, condition_matches, parse_condition
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
    "InstructionsLoaded": "load_reason",
    "DirectoryAdded": None,
}

DEFAULT_TIMEOUT_S = 60.0
#: Claude Code's other handler types, named in the sentence that says they are skipped
UNSUPPORTED_TYPES = {
    "prompt": " (a model judges the event)",
    "agent": " (an agent verifies the event)",
    "http": " (the event is POSTed to a URL)",
    "mcp_tool": " (an MCP tool is called)",
}
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
    "PreModelSwitch",
    "PostModelSwitch",
    "PreSkillShellCommand",
    "CwdChanged",
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
    #: `if`: a permission rule the tool call must match for it to run (Claude Code 2.1.85)
    condition: str | None = None
    #: `asyncRewake`: in the background, and its exit code 2 wakes the model with its stderr
    rewake: bool = False
    #: `once`: runs once per session, then is removed
    once: bool = False
    #: `args` (exec form): `command` is spawned directly with these arguments, no shell
    args: tuple[str, ...] | None = None
    #: `onFailure: "block"`: a hook that fails (cannot start, times out, exits neither 0 nor 2, bad JSON) blocks
    block_on_failure: bool = False

    @property
    def origin(self) -> str:
        """Where it comes from, for sentences and the inspector: the file, or the plugin and its file."""
        return f"plugin {self.plugin}, {self.source}" if self.plugin else str(self.source)

    @property
    def when(self) -> str:
        """The matcher, its `if` and how it runs, as /hooks, the trust question and /plugin show it.

        E.g. `Bash if Bash(git push *)`, `* · async`, `Write|Edit · asyncRewake · once`.
        """
        text = self.matcher or "*"
        if self.condition:
            text += f" if {self.condition}"
        flags = ["asyncRewake" if self.rewake else "async" if self.background else "", "once" if self.once else ""]
        return " · ".join([text, *(f for f in flags if f)])

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
    #: runs a callback hook (HookSpec.callback) and fills in its run as a command's would be (tui/headless/sdk_control)
    invoke: Callable[[Any, Any], None] | None = None

    def for_event(
        self, event: str, value: str | None, tool_input: Any = None, project_dir: Path | None = None
    ) -> list[HookSpec]:
        """The handlers that run for `event` (matched on `value`, their `if` on the call): trusted, enabled, once each."""
        chosen: dict[str, HookSpec] = {}
        for spec in self.hooks:
            if spec.event != event or spec.command in chosen or spec.key in self.disabled:
                continue
            if spec.project and not self.trusted:
                continue
            if EVENTS.get(event) is not None and not matches(spec.matcher, value):
                continue
            if spec.condition is not None and not _condition_holds(
                spec.condition, event, value, tool_input, project_dir
            ):
                continue
            chosen[spec.command] = spec
        return list(chosen.values())

    def ran_once(self, spec: HookSpec) -> None:
        """A `once` hook ran: it does not run again this session."""
        self.disabled.add(spec.key)

    def has(self, event: str) -> bool:
        """Whether any hook could run for `event` (cheap check before building its input)."""
        return any(
            s.event == event and (self.trusted or not s.project) and s.key not in self.disabled for s in self.hooks
        )


def _condition_holds(condition: str, event: str, tool: str | None, tool_input: Any, project_dir: Path | None) -> bool:
    if event not in TOOL_EVENTS or tool is None:
        return False
    try:
        rule = parse_condition(condition)
    except ValueError:
        return False
    return condition_matches(rule, tool, tool_input, project_dir or Path.cwd())


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
                if spec is not None and spec.condition is not None and not _condition_ok(spec, problem, name):
                    continue
                if spec is not None:
                    specs.append(spec)
    return specs, problems


def _handler(handler: Any, event: str, matcher: str | None, path: Path, project: bool, problem: Any) -> HookSpec | None:
    if not isinstance(handler, dict):
        problem("a handler must be a table with `type` and `command`; ignored.")
        return None
    kind = handler.get("type", "command")
    if kind != "command":
        what = UNSUPPORTED_TYPES.get(str(kind), "")
        problem(
            f"hook type `{kind}` is not supported by agent-tui{what}; only `command` runs, that handler is ignored."
        )
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
    condition = handler.get("if")
    if condition is not None and not isinstance(condition, str):
        problem("`if` must be a permission rule in a string, e.g. `Bash(git push *)`; that handler never runs.")
        return None
    rewake = handler.get("asyncRewake") is True
    args = handler.get("args")
    if args is not None and (not isinstance(args, list) or not all(isinstance(a, str) for a in args)):
        problem("`args` must be a list of strings; that handler is ignored.")
        return None
    if handler.get("shell", "bash") != "bash":
        problem(f"`shell: {handler.get('shell')}` is not supported by agent-tui (hooks run under sh); ignored.")
        return None
    return HookSpec(
        event,
        matcher or None,
        command,
        float(timeout),
        path,
        project,
        message if isinstance(message, str) else None,
        handler.get("async") is True or rewake,
        condition=condition.strip() if condition and condition.strip() else None,
        rewake=rewake,
        once=handler.get("once") is True,
        args=tuple(args) if args is not None else None,
        block_on_failure=handler.get("onFailure", "continue") != "continue",
    )


def _condition_ok(spec: HookSpec, problem: Any, name: str) -> bool:
    """Whether a handler's `if` can ever hold; one sentence when it cannot (Claude Code never runs it either)."""
    if spec.event not in TOOL_EVENTS:
        problem(name, f"`if` only applies to tool events; this {spec.event} hook never runs (as in Claude Code).")
        return False
    try:
        parse_condition(spec.condition or "")
    except ValueError as exc:
        problem(name, f"`if`: {exc} This hook never runs (as in Claude Code).")
        return False
    return True
