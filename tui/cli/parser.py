"""The command line's flags: `build_parser` (Claude Code's names where they exist), the subcommands and the modes.

cli.py turns the parsed flags into AgentOptions and runs the app, `-p` or a subcommand.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from tui import __version__
from tui.agent.api.thinking import EFFORT_LEVELS

from .args import DirList, McpConfigList, RuleList, add_sdk_flags, positive_amount, positive_count, settings_value

PERMISSION_MODES = ("default", "acceptEdits", "plan", "bypassPermissions")
#: Claude Code's modes agent-tui does not have: parsed, then refused in one sentence (tui/cli/sdk.py)
OTHER_CC_MODES = ("dontAsk", "auto")


#: `agent-tui NAME …` runs another program: NAME -> (module with `main(argv) -> int`, what it does)
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "mcp": (
        "tui.mcp.cli",
        "manage MCP servers: list, get, add, add-json, remove, login, logout, reset-project-choices",
    ),
    "acp": ("tui.acp.server", "speak the Agent Client Protocol over stdio (Zed, Toad, other ACP clients)"),
    "plugin": (
        "tui.plugins.cli",
        "manage plugins: install, enable, disable, uninstall, list; marketplace add|list|remove|update",
    ),
    "replay": ("tui.ui.replay_app", "play a recorded session in the app (default: this project's newest)"),
}


def build_parser() -> argparse.ArgumentParser:
    width = max(len(name) for name in SUBCOMMANDS) + 2
    commands = "\n".join(f"  agent-tui {name:<{width}}{what}" for name, (_, what) in SUBCOMMANDS.items())
    p = argparse.ArgumentParser(
        prog="agent-tui",
        description="A terminal coding agent that shows every step of the agent loop.",
        epilog=f"subcommands (`agent-tui NAME --help` for each):\n{commands}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("prompt", nargs="*", help="prompt to submit at start (with -p: the prompt to run)")
    p.add_argument("-p", "--print", dest="print_mode", action="store_true", help="headless: run one turn, print, exit")
    p.add_argument("--output-format", choices=("text", "json", "stream-json"), default="text")
    p.add_argument(
        "--input-format",
        choices=("text", "stream-json"),
        default="text",
        help='-p: stream-json reads prompts from stdin, one JSON line each ({"type":"user",...}), '
        "several turns in one run",
    )
    p.add_argument("--include-partial-messages", action="store_true", help="stream-json: include per-token events")
    p.add_argument(
        "--include-hook-events",
        action="store_true",
        help="stream-json: a system line when each hook starts and ends (hook_started, hook_response)",
    )
    p.add_argument(
        "--verbose",
        action="store_true",
        help="-p: text lists each tool call on stderr; json prints every message as one array "
        "(as Claude Code); stream-json is complete already and accepts it",
    )
    p.add_argument("--model", help="model id (default from settings)")
    p.add_argument("--fallback-model", help="model to switch to when the model stays overloaded after retries")
    p.add_argument("--max-turns", type=positive_count, help="stop after this many model calls in a turn")
    p.add_argument("--max-budget-tokens", type=positive_count, help="stop when the session has used this many tokens")
    p.add_argument(
        "--max-budget-usd",
        type=positive_amount,
        metavar="USD",
        help="stop when the session has cost this many US dollars",
    )
    p.add_argument(
        "--max-tokens", type=positive_count, help="max_tokens per response (default: the model's output limit)"
    )
    p.add_argument("--effort", choices=EFFORT_LEVELS, help="output_config.effort, for models that take it")
    p.add_argument(
        "--add-dir",
        dest="add_dirs",
        nargs="+",
        action=DirList,
        metavar="PATH",
        help="more working directories the tools may use as the project (repeatable)",
    )
    p.add_argument("--permission-mode", choices=PERMISSION_MODES + OTHER_CC_MODES)
    p.add_argument(
        "--settings",
        type=settings_value,
        metavar="FILE_OR_JSON",
        help="a settings file (.json/.toml) or a JSON string, layered on top of the other settings",
    )
    rules_help = "rules, space- or comma-separated; the list ends at the next flag, at --, or at a word that is no rule"
    p.add_argument(
        "--allowedTools", "--allowed-tools", dest="allowed", nargs="+", action=RuleList, metavar="RULE", help=rules_help
    )
    p.add_argument(
        "--disallowedTools",
        "--disallowed-tools",
        dest="disallowed",
        nargs="+",
        action=RuleList,
        metavar="RULE",
        help=rules_help,
    )
    p.add_argument(
        "--mcp-config",
        dest="mcp_config",
        nargs="+",
        action=McpConfigList,
        metavar="FILE_OR_JSON",
        help='MCP servers from JSON files or strings ({"mcpServers": {...}}); repeatable',
    )
    p.add_argument("--strict-mcp-config", action="store_true", help="use only the servers of --mcp-config")
    p.add_argument("--no-parallel", action="store_true", help="run tool calls one at a time")
    p.add_argument("--offline", action="store_true", help="use the built-in offline demo model")
    p.add_argument("-c", "--continue", dest="continue_", action="store_true", help="continue the newest session here")
    p.add_argument("-r", "--resume", nargs="?", const="", metavar="ID", help="resume a session (picker without ID)")
    p.add_argument(
        "--fork-session",
        action="store_true",
        help="with -c/-r: continue in a new session holding a copy of the history",
    )
    p.add_argument("--cwd", type=Path, help="project directory (default: the current directory)")
    p.add_argument("-v", "--version", action="version", version=f"agent-tui {__version__}")
    add_sdk_flags(p)  # what the Claude Agent SDK passes its CLI
    return p
