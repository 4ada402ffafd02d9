"""Checks on command-line values: a bad value is a usage error (exit 2) that names its flag.

Also Claude Code's variadic `--allowedTools`/`--disallowedTools`, made safe for the prompt,
the one sentence for a start without a terminal, and the flags the Claude Agent SDK passes its
CLI (declared here, applied by tui/cli/sdk.py only when one is given).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import select
import stat
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

#: a permission rule as Claude Code spells one: `Edit`, `Bash(git *)`, `mcp__server__tool`, `mcp__server`
_RULE = re.compile(r"^(?:[A-Z][A-Za-z0-9_]*|mcp__[\w*-]+)(?:\(.*\))?$", re.DOTALL)
NO_TTY = (
    "agent-tui: the full-screen app needs a terminal (stdin and stdout must be a TTY); "
    'use -p for scripts and pipes: agent-tui -p "what to do".'
)
#: with a prompt given, how long -p waits for the first byte on a piped stdin (a pipe nobody writes to
#: or closes, as a parent process may leave it, must not hang the run; Claude Code waits 3 s too)
STDIN_WAIT_S = 3.0


def positive_count(value: str) -> int:
    """An argparse `type` for a whole number of at least 1 (turns, tokens); argparse names the flag."""
    try:
        number = int(value.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"takes a whole number, not {value!r}") from None
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {number}")
    return number


def positive_amount(value: str) -> float:
    """An argparse `type` for an amount above 0 (dollars); argparse names the flag."""
    try:
        amount = float(value.replace("_", "").removeprefix("$"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"takes an amount in US dollars such as 0.50, not {value!r}") from None
    if not amount > 0 or amount == float("inf"):
        raise argparse.ArgumentTypeError(f"must be more than 0, not {value}")
    return amount


def settings_value(value: str) -> str:
    """An argparse `type` for --settings: a JSON object, or a settings file that exists."""
    if value.lstrip().startswith("{"):
        try:
            data = json.loads(value)
        except (json.JSONDecodeError, RecursionError) as exc:
            raise argparse.ArgumentTypeError(f"the JSON is not valid ({exc})") from None
        if not isinstance(data, dict):
            raise argparse.ArgumentTypeError("the JSON must be an object")
        return value
    from tui.config.special_files import SpecialFileError, check_regular

    try:
        check_regular(value)
    except FileNotFoundError:
        raise argparse.ArgumentTypeError(f"no such file: {value}") from None
    except (SpecialFileError, OSError) as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    if Path(value).suffix not in (".json", ".toml"):
        raise argparse.ArgumentTypeError(f"{value} must be a .json or .toml file (or a JSON string)")
    return value


def split_rules(values: list[str] | None) -> list[str]:
    """Rules may be given space- or comma-separated; keep `Bash(a, b)` specifiers whole."""
    rules: list[str] = []
    for value in values or ():
        depth = 0
        current = ""
        for ch in value:
            if ch == "(":
                depth += 1
            elif ch == ")":
                depth = max(depth - 1, 0)
            if ch in ", " and depth == 0:
                if current.strip():
                    rules.append(current.strip())
                current = ""
                continue
            current += ch
        if current.strip():
            rules.append(current.strip())
    return rules


def looks_like_rules(value: str) -> bool:
    """True when every space- or comma-separated part of `value` is a permission rule."""
    parts = split_rules([value])
    return bool(parts) and all(_RULE.match(part) for part in parts)


class _StoppingList(argparse.Action):
    """A variadic, repeatable option whose list stops at the first later word `belongs` refuses.

    Claude Code takes every word after such a flag up to the next flag, so `-p --allowedTools Edit "fix it"`
    lost the prompt; here the words after the cut are kept as the prompt (`spilled_prompt`).
    """

    @staticmethod
    def belongs(item: str) -> bool:
        raise NotImplementedError

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        items = [str(v) for v in (values if isinstance(values, list) else [values])]
        cut = next((i for i, item in enumerate(items) if i and not self.belongs(item)), len(items))
        setattr(namespace, self.dest, (getattr(namespace, self.dest, None) or []) + items[:cut])
        spilled = list(getattr(namespace, "spilled_prompt", None) or [])
        namespace.spilled_prompt = spilled + items[cut:]


class RuleList(_StoppingList):
    """`--allowedTools RULE…` and its kin: the list stops at the first word that is not a rule."""

    @staticmethod
    def belongs(item: str) -> bool:
        return looks_like_rules(item)


class McpConfigList(_StoppingList):
    """`--mcp-config FILE_OR_JSON…`: the list stops at a word that is no JSON object or file."""

    @staticmethod
    def belongs(item: str) -> bool:
        return _config_like(item)


class DirList(_StoppingList):
    """`--add-dir PATH…`: after the first path the list stops at a word that is no folder (the prompt)."""

    @staticmethod
    def belongs(item: str) -> bool:
        return os.path.isdir(item)


def added_dirs(values: list[str] | None, project_dir: Path) -> list[Path]:
    """The --add-dir folders, absolute and resolved; ValueError with one sentence for one that is not a folder."""
    found: list[Path] = []
    for value in values or ():
        path = Path(os.path.expanduser(value)).resolve()
        if not path.is_dir():
            raise ValueError(f"--add-dir: {value} is not a directory.")
        if path != project_dir and path not in found:
            found.append(path)
    return found


def _config_like(value: str) -> bool:
    return value.lstrip().startswith("{") or value.endswith(".json") or Path(value).is_file()


def prompt_words(args: argparse.Namespace) -> str:
    """The prompt: words a rule list did not take, then the positional words."""
    return " ".join([*(getattr(args, "spilled_prompt", None) or []), *args.prompt]).strip()


def no_prompt_message(args: argparse.Namespace) -> str:
    """The sentence for -p without a prompt, naming rules that may have taken it."""
    message = 'agent-tui: -p needs a prompt, as an argument or on stdin: agent-tui -p "what to do"'
    rules = [*(args.allowed or []), *(args.disallowed or [])]
    if rules:
        shown = ", ".join(rules)
        message += (
            f". The words after --allowedTools/--disallowedTools were read as rules ({shown}); "
            "put the prompt first or after --"
        )
    return message + "."


def input_format_problem(args: argparse.Namespace, prompt: str) -> str | None:
    """The sentence refusing an --input-format combination that cannot work, or None."""
    if getattr(args, "input_format", "text") != "stream-json":
        return None
    if not args.print_mode:
        return "agent-tui: --input-format stream-json applies only with -p."
    if args.output_format != "stream-json":
        return (
            "agent-tui: --input-format stream-json needs --output-format stream-json "
            "(each turn's answer ends with its own result line)."
        )
    if prompt:
        return (
            "agent-tui: with --input-format stream-json the prompts come from stdin, one JSON line each; "
            "leave out the PROMPT argument."
        )
    return None


def piped_stdin() -> str | None:
    """ "pipe" (a FIFO or socket), "file" (a redirected file), or None (a terminal, /dev/null, closed)."""
    try:
        mode = os.fstat(sys.stdin.fileno()).st_mode
    except (OSError, ValueError, AttributeError):
        return None
    if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
        return "pipe"
    return "file" if stat.S_ISREG(mode) else None


def read_stdin(prompt: str, wait_s: float = STDIN_WAIT_S) -> tuple[str, str | None]:
    """The prompt with piped stdin before it (as Claude Code sends it), and a sentence when stdin was skipped."""
    kind = piped_stdin()
    if kind is None:
        return prompt, None
    if kind == "pipe" and prompt:
        try:
            ready, _, _ = select.select([sys.stdin], [], [], wait_s)
        except (OSError, ValueError):
            ready = [sys.stdin]
        if not ready:
            return prompt, (
                f"agent-tui: nothing arrived on the piped stdin within {wait_s:g} s, so it was not read; "
                "the prompt runs alone (redirect stdin from /dev/null to skip the wait)."
            )
    piped = sys.stdin.buffer.read().decode("utf-8", errors="replace").strip()
    if not piped:
        return prompt, None
    return (f"{piped}\n\n{prompt}" if prompt else piped), None


def unread_stdin_notice() -> str | None:
    """For the app's no-terminal refusal: a sentence when stdin was piped (its text is not read)."""
    kind = piped_stdin()
    if kind is None:
        return None
    try:  # an empty pipe or file (`< /dev/null`-like) holds nothing to lose: no sentence
        if kind == "file" and os.fstat(sys.stdin.fileno()).st_size == 0:
            return None
        if kind == "pipe" and select.select([sys.stdin], [], [], 0)[0] and not os.read(sys.stdin.fileno(), 1):
            return None
    except (OSError, ValueError):
        pass
    return (
        "agent-tui: stdin is piped and was not read (the full-screen app does not take input from a pipe); "
        'to send it with a prompt: cat FILE | agent-tui -p "explain".'
    )


def add_sdk_flags(p: argparse.ArgumentParser) -> None:
    """Claude Code's flags the Agent SDK passes (honoured or refused in one sentence by `apply_sdk_flags`)."""
    p.add_argument(
        "--system-prompt",
        metavar="TEXT",
        help="replace agent-tui's instructions (memory files and the environment block stay)",
    )
    p.add_argument("--system-prompt-file", metavar="PATH", help="--system-prompt, read from a file")
    p.add_argument(
        "--append-system-prompt", metavar="TEXT", help="add TEXT to the system prompt after the instructions"
    )
    p.add_argument(
        "--tools", metavar="NAMES", help='the built-in tools offered, comma-separated ("" none, "default" all)'
    )
    p.add_argument(
        "--permission-prompt-tool",
        metavar="stdio",
        help="with stream-json input: ask the Agent SDK's can_use_tool over the control protocol",
    )
    p.add_argument("--setting-sources", metavar="LIST", help="accepted when it names user,project,local")
    p.add_argument("--max-thinking-tokens", type=int, metavar="N", help="extended thinking on (N > 0) or off (0)")
    p.add_argument("--thinking", choices=("adaptive", "enabled", "disabled"), help="extended thinking on or off")
    p.add_argument("--thinking-display", metavar="summarized", help="accepted as summarized (what agent-tui shows)")
    for flag in (
        "--task-budget",
        "--betas",
        "--json-schema",
        "--resume-session-at",
        "--resume-drops-turn",
        "--session-id",
    ):
        p.add_argument(flag, help=argparse.SUPPRESS)
    p.add_argument("--plugin-dir", action="append", help=argparse.SUPPRESS)
    p.add_argument("--session-mirror", action="store_true", help=argparse.SUPPRESS)


def implies_print_mode(args: argparse.Namespace) -> bool:
    """stream-json in and out is headless, as the Agent SDK runs its CLI (it passes no -p)."""
    return (
        getattr(args, "input_format", "text") == "stream-json" and getattr(args, "output_format", "") == "stream-json"
    )


#: the destinations of the flags above: when one is given, tui/cli/sdk.py applies (or refuses) them
SDK_FLAG_DESTS = (
    "system_prompt",
    "system_prompt_file",
    "append_system_prompt",
    "tools",
    "permission_prompt_tool",
    "setting_sources",
    "max_thinking_tokens",
    "thinking",
    "thinking_display",
    "task_budget",
    "betas",
    "json_schema",
    "plugin_dir",
    "resume_session_at",
    "resume_drops_turn",
    "session_mirror",
    "session_id",
)


def sdk_flags_given(args: argparse.Namespace) -> bool:
    """Whether any of the Agent SDK's flags (or a mode agent-tui lacks) was given."""
    return any(getattr(args, dest, None) not in (None, False) for dest in SDK_FLAG_DESTS) or getattr(
        args, "permission_mode", None
    ) in ("dontAsk", "auto")
