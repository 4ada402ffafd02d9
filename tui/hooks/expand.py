"""Turn a command or skill into the prompt it stands for: arguments, variables, `!` commands, `@` files.

Arguments follow Claude Code 2.1 exactly: `$ARGUMENTS` is the whole string, `$ARGUMENTS[N]` and
`$N` are 0-based words (shell-style quoting), a missing word is empty, `$name` comes from the
`arguments:` list, `\\$` escapes, and when nothing was substituted the arguments are appended as
`ARGUMENTS: …`. `` !`cmd` `` (at a line start or after whitespace) and ```` ```! ```` blocks run
before the prompt is sent, through the Bash verdict with the file's `allowed-tools` added; they
never ask: anything short of an allow refuses the whole command, and so does a project file's
`!` line in a folder the user has not trusted.
"""

from __future__ import annotations

import dataclasses
import re
import shlex
import threading
from pathlib import Path
from typing import Any

from tui.tools.base import SessionState, ToolContext, ToolError, ToolInterrupted

from .commands import CustomCommand

_ESCAPED = "\uffff"
_INLINE = re.compile(r"(?:^|(?<=\s))!`([^`\n]+)`")
_FENCE = re.compile(r"^```!\s*\n(.*?)^```\s*$", re.S | re.M)
#: both forms in one pass, so an output is never scanned again
_EITHER = re.compile(rf"{_FENCE.pattern}|{_INLINE.pattern}", re.S | re.M)
#: Claude Code's time limit for an injected command (the Bash default)
INJECT_TIMEOUT_MS = 120_000


class ExpansionRefused(ToolError):
    """A `!` command may not run here; the message is the one sentence the user (or model) sees."""


def split_arguments(args: str) -> list[str]:
    """Words of `args` with shell-style quoting; plain whitespace split when the quoting is broken."""
    if not args.strip():
        return []
    try:
        return shlex.split(args)
    except ValueError:
        return args.split()


def substitute_arguments(body: str, args: str, names: tuple[str, ...] = (), append: bool = True) -> str:
    """Claude Code's argument substitution (see the module docstring)."""
    words = split_arguments(args)

    def word(index: int) -> str:
        return words[index] if 0 <= index < len(words) else ""

    named = sorted(((n, i) for i, n in enumerate(names) if n), key=lambda p: -len(p[0]))
    alternatives = "|".join([r"\d", "ARGUMENTS", *(re.escape(n) + r"(?![\[\w])" for n, _ in named)])
    escaped = re.sub(rf"(?<!\\)\\\$(?={alternatives})", _ESCAPED, body)
    used = False

    def mark(value: str) -> str:
        nonlocal used
        used = True
        return value.replace(_ESCAPED, "")

    text = escaped
    for name, index in named:

        def by_name(m: re.Match[str], i: int = index) -> str:
            return mark(word(i))

        text = re.sub(rf"\${re.escape(name)}(?![\[\w])", by_name, text)
    text = re.sub(r"\$ARGUMENTS\[(\d+)\]", lambda m: mark(word(int(m.group(1)))), text)
    text = re.sub(r"\$(\d+)(?!\w)", lambda m: mark(word(int(m.group(1)))), text)
    text = re.sub(r"\$ARGUMENTS", lambda m: mark(args), text)
    if not used and append and args:
        text += f"\n\nARGUMENTS: {args}"
    return text.replace(_ESCAPED, "$")


def substitute_variables(text: str, command: CustomCommand, project_dir: Path, session_id: str) -> str:
    """`${CLAUDE_SKILL_DIR}`, `${CLAUDE_PROJECT_DIR}`, `${CLAUDE_SESSION_ID}` (and agent-tui's own spelling),
    `${CLAUDE_PLUGIN_ROOT}` in a plugin's; inside `!` lines each value is quoted for the shell (shell_quote.py)."""
    from .shell_quote import substitute_quoted

    values = _variables(command, project_dir, session_id)
    text = _EITHER.sub(lambda m: substitute_quoted(m.group(0), values), text)
    return re.sub(r"\$\{(\w+)\}", lambda m: values.get(m.group(1), m.group(0)), text)


def _variables(command: CustomCommand, project_dir: Path, session_id: str) -> dict[str, str]:
    values = {
        "CLAUDE_SKILL_DIR": str(command.folder),
        "CLAUDE_PROJECT_DIR": str(project_dir),
        "AGENT_TUI_PROJECT_DIR": str(project_dir),
        "CLAUDE_SESSION_ID": session_id,
    }
    if command.plugin_root:  # a plugin's command names its own files through it (as Claude Code)
        values["CLAUDE_PLUGIN_ROOT"] = command.plugin_root
    return values


def shell_commands(text: str) -> list[str]:
    """The `!` commands of a rendered body, in order."""
    return [m.group(1) for m in _FENCE.finditer(text)] + [m.group(1) for m in _INLINE.finditer(_FENCE.sub("", text))]


def check_injection(command_line: str, command: CustomCommand, policy: Any, project_dir: Path) -> str | None:
    """Why `command_line` may not run for `command` (None when it may): trust first, then the Bash verdict."""
    from tui.config.refusal_advice import shell_line_advice
    from tui.tools.bash import BashTool

    where = f"/{command.name} ({command.path})"
    if command.from_project and command.plugin and not getattr(policy, "trusted", True):
        return (
            f"{where} was not run: its `!` command `{command_line}` comes from the plugin {command.plugin}, which "
            "this folder's settings enable and you have not installed yourself. Trust the folder (/trust) or "
            f"install it (agent-tui plugin install {command.plugin}) to let it run shell lines."
        )
    if command.from_project and not getattr(policy, "trusted", True):
        return (
            f"{where} was not run: its `!` command `{command_line}` comes from a folder you have not trusted. "
            "Trust the folder (run agent-tui here and accept the question) to let project commands run shell lines."
        )
    extra = [t for t in command.allowed_tools if t.split("(", 1)[0] == "Bash"]
    checked = dataclasses.replace(policy, allow=[*policy.allow, *extra]) if extra else policy
    ctx = ToolContext(project_dir=project_dir, state=SessionState(project_dir=project_dir))
    verdict = checked.check(BashTool(), {"command": command_line}, ctx)
    if verdict.decision == "allow":
        return None
    why = verdict.reason.rstrip(".")
    advice = shell_line_advice(verdict, checked.suggest_rule(BashTool(), {"command": command_line}, ctx))
    return f"{where} was not run: its `!` command `{command_line}` is not allowed ({why}). {advice}"


def run_injection(command_line: str, project_dir: Path, cancel: threading.Event | None = None) -> tuple[str, bool]:
    """Run one `!` command as the Bash tool does (its own state: a `cd` does not carry over); (output, failed)."""
    from tui.tools.bash import BashTool

    ctx = ToolContext(project_dir=project_dir, state=SessionState(project_dir=project_dir))
    if cancel is not None:
        ctx.cancel = cancel
    try:
        result = BashTool().run({"command": command_line, "timeout": INJECT_TIMEOUT_MS}, ctx)
    except ToolInterrupted:
        raise ExpansionRefused(f"The `!` command `{command_line}` was interrupted.") from None
    text = result.text()
    lines = text.rsplit("\n", 1)
    body = lines[0] if len(lines) == 2 and lines[1].startswith("Exit code:") else text
    return ("" if body == "(no output)" else body), result.is_error


def run_shell_lines(
    text: str, command: CustomCommand, policy: Any, project_dir: Path, cancel: threading.Event | None = None
) -> str:
    """Check every `!` command first (nothing runs if one is refused), then run each and put its output in place."""
    for line in shell_commands(text):
        refusal = check_injection(line, command, policy, project_dir)
        if refusal:
            raise ExpansionRefused(refusal)

    def replace(match: re.Match[str]) -> str:
        line = match.group(1) if match.group(1) is not None else match.group(2)
        output, failed = run_injection(line, project_dir, cancel)
        if failed:
            raise ExpansionRefused(f"/{command.name} was not run: its `!` command `{line}` failed:\n{output}")
        return output

    return _EITHER.sub(replace, text)


def expand(
    command: CustomCommand,
    args: str,
    *,
    project_dir: Path,
    policy: Any,
    session_id: str = "",
    cancel: threading.Event | None = None,
) -> str:
    """The prompt `/name args` stands for; ExpansionRefused with one sentence when a `!` line may not run."""
    text = substitute_arguments(command.body, args, command.arguments)
    text = substitute_variables(text, command, project_dir, session_id)
    if shell_commands(text):
        text = run_shell_lines(text, command, policy, project_dir, cancel)
    if command.kind == "skill":  # as Claude Code: the skill's other files are found from here
        text = f"Base directory for this skill: {command.folder}\n\n{text}"
    return text
