"""The flags the Claude Agent SDK passes to its CLI, as agent-tui takes them.

The SDK (`claude-agent-sdk`, with `cli_path` pointing at agent-tui) always passes
`--output-format stream-json --verbose --input-format stream-json` and `--system-prompt`,
and others when an option is set. Each is either honoured or refused in one sentence: with
stream-json output that sentence is also an error `result` line, which the SDK raises as
the reason its connection failed. Nothing heavy is imported here.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tui.agent.options import AgentOptions

#: the setting layers agent-tui reads, always all of them
SETTING_SOURCES = {"user", "project", "local"}
#: flags parsed only to be refused, with why (Claude Code features agent-tui does not have)
REFUSED = {
    "task_budget": "--task-budget (a token budget the model is told about) is not supported by agent-tui; "
    "--max-budget-tokens stops the run at a budget instead",
    "betas": "--betas is not supported by agent-tui (it sends no beta headers of your choosing)",
    "json_schema": "--json-schema (structured output) is not supported by agent-tui",
    "plugin_dir": "--plugin-dir (plugins) is not supported by agent-tui",
    "resume_session_at": "--resume-session-at is not supported by agent-tui (-r resumes a whole session)",
    "resume_drops_turn": "--resume-drops-turn is not supported by agent-tui",
    "session_mirror": "--session-mirror (an SDK session store) is not supported by agent-tui",
    "session_id": "--session-id is not supported by agent-tui (it names its sessions itself; -r ID resumes one)",
}


def apply_sdk_flags(args: argparse.Namespace, opts: AgentOptions) -> list[str]:
    """Put the honoured flags into `opts`; one sentence per flag that cannot be honoured."""
    refusals = [why for dest, why in REFUSED.items() if getattr(args, dest, None) not in (None, False, [])]
    if args.system_prompt_file is not None:
        try:
            opts.system_prompt = Path(args.system_prompt_file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            refusals.append(f"--system-prompt-file: {args.system_prompt_file} cannot be read ({exc})")
    if args.system_prompt is not None:
        opts.system_prompt = args.system_prompt
    if args.append_system_prompt:
        opts.append_system_prompt = args.append_system_prompt
    if args.tools is not None:
        opts.tool_names = tool_names(args.tools)
    tool = args.permission_prompt_tool
    if tool is not None and (tool != "stdio" or args.input_format != "stream-json"):
        refusals.append(
            f"--permission-prompt-tool {tool} is not supported: agent-tui asks permission over the "
            "Agent SDK's control protocol only (--permission-prompt-tool stdio with --input-format "
            "stream-json)"
        )
    if args.setting_sources is not None:
        named = {s.strip() for s in args.setting_sources.split(",") if s.strip()}
        if named != SETTING_SOURCES:
            refusals.append(
                f"--setting-sources={args.setting_sources} cannot be honoured: agent-tui always reads "
                'the user, project and local settings (setting_sources=["user", "project", '
                '"local"] or leave it unset)'
            )
    if args.max_thinking_tokens is not None:
        opts.thinking = args.max_thinking_tokens > 0
    if args.thinking is not None:
        opts.thinking = args.thinking != "disabled"
    if args.thinking_display not in (None, "summarized"):
        refusals.append(
            f"--thinking-display {args.thinking_display} is not supported: agent-tui always asks "
            "for summarized thinking"
        )
    if args.permission_mode in ("dontAsk", "auto"):
        refusals.append(
            f"--permission-mode {args.permission_mode} is not supported by agent-tui (use default, "
            "acceptEdits, plan or bypassPermissions)"
        )
    return refusals


def tool_names(value: str) -> list[str] | None:
    """`--tools`: "default" is every built-in tool (None), "" none, else the names given."""
    if value.strip() == "default":
        return None
    return [name.strip() for name in value.replace(" ", ",").split(",") if name.strip()]


def startup_error(args: argparse.Namespace, sentence: str) -> int:
    """Refuse to start: the sentence on stderr, and with stream-json output an error `result` line too.

    The Agent SDK reads that line and raises its text as the reason the connection failed
    (as for Claude Code's own start-up errors). Exit code 2.
    """
    from tui.text.sanitize import visible

    print(visible(f"agent-tui: {sentence}"), file=sys.stderr)
    if getattr(args, "output_format", "") == "stream-json":
        import json

        line: dict[str, Any] = {
            "type": "result",
            "subtype": "error_during_execution",
            "is_error": True,
            "duration_ms": 0,
            "duration_api_ms": 0,
            "num_turns": 0,
            "session_id": "",
            "stop_reason": "usage",
            "result": sentence,
            "errors": [sentence],
        }
        from tui.text.redact import redact

        sys.stdout.write(redact(json.dumps(line)) + "\n")
        sys.stdout.flush()
    return 2
