"""The attributes Claude Code puts on every metric and event, and the small facts some of them need.

`session.id`, `user.id` (an anonymous id made once per installation), `terminal.type`, `app.version` and
the pairs of OTEL_RESOURCE_ATTRIBUTES, each behind the switch Claude Code documents for it.
"""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path
from typing import Any

from tui import __version__
from tui.config.paths import user_data_dir
from tui.system.private_files import open_private

from .config import TelemetryConfig

REDACTED = "<REDACTED>"
#: Claude Code's limits for `tool_input` (OTEL_LOG_TOOL_DETAILS): each value, and the whole JSON
VALUE_LIMIT = 512
INPUT_LIMIT = 4096
#: and for tool content on spans (OTEL_LOG_TOOL_CONTENT)
CONTENT_LIMIT = 60 * 1024

LANGUAGES = {
    ".py": "Python",
    ".pyi": "Python",
    ".ts": "TypeScript",
    ".tsx": "TypeScript",
    ".js": "JavaScript",
    ".jsx": "JavaScript",
    ".mjs": "JavaScript",
    ".cjs": "JavaScript",
    ".md": "Markdown",
    ".json": "JSON",
    ".go": "Go",
    ".rs": "Rust",
    ".java": "Java",
    ".kt": "Kotlin",
    ".rb": "Ruby",
    ".php": "PHP",
    ".c": "C",
    ".h": "C",
    ".cc": "C++",
    ".cpp": "C++",
    ".hpp": "C++",
    ".cs": "C#",
    ".swift": "Swift",
    ".sh": "Shell",
    ".bash": "Shell",
    ".zsh": "Shell",
    ".html": "HTML",
    ".css": "CSS",
    ".scss": "SCSS",
    ".sql": "SQL",
    ".yaml": "YAML",
    ".yml": "YAML",
    ".toml": "TOML",
    ".xml": "XML",
    ".ipynb": "Jupyter Notebook",
    ".lua": "Lua",
    ".scala": "Scala",
    ".r": "R",
    ".dart": "Dart",
    ".vue": "Vue",
    ".svelte": "Svelte",
}


def language(path: str) -> str:
    """The language of a file by its extension, as the code-edit decision counter names it ("unknown" else)."""
    return LANGUAGES.get(Path(path).suffix.lower(), "unknown")


def installation_id() -> str:
    """The anonymous `user.id`: random, made once and kept in the user's data folder (per run if it cannot be)."""
    path = user_data_dir() / "telemetry-user-id"
    try:
        value = path.read_text(encoding="ascii").strip()
        if len(value) == 64:
            return value
    except (OSError, UnicodeDecodeError):
        pass
    value = secrets.token_hex(32)
    try:
        with open_private(path, "w", encoding="ascii") as handle:
            handle.write(value + "\n")
    except OSError:
        pass
    return value


def terminal_type(env: dict[str, str] | os._Environ[str] | None = None) -> str | None:
    """The terminal, when it says: TERM_PROGRAM (iTerm.app, vscode, …), else tmux."""
    env = os.environ if env is None else env
    return env.get("TERM_PROGRAM") or ("tmux" if env.get("TMUX") else None)


class StandardAttributes:
    """Builds the attributes every metric data point and event carries (Claude Code's standard attributes)."""

    def __init__(self, config: TelemetryConfig, entrypoint: str) -> None:
        base: dict[str, Any] = {}
        if config.include_resource_attributes:
            base.update(config.resource_attributes)
        base["user.id"] = installation_id()
        if config.include_version:
            base["app.version"] = __version__
        if config.include_entrypoint:
            base["app.entrypoint"] = entrypoint
        if terminal := terminal_type():
            base["terminal.type"] = terminal
        self.base = base
        self.include_session_id = config.include_session_id

    def __call__(self, session_id: str) -> dict[str, Any]:
        attributes = dict(self.base)
        if self.include_session_id:
            attributes["session.id"] = session_id
        return attributes


def tool_input_json(tool_input: dict[str, Any]) -> str:
    """The tool's input as JSON, each long value cut at VALUE_LIMIT and the whole at INPUT_LIMIT characters."""

    def cut(value: Any) -> Any:
        if isinstance(value, str) and len(value) > VALUE_LIMIT:
            return value[:VALUE_LIMIT] + "…[truncated]"
        if isinstance(value, dict):
            return {k: cut(v) for k, v in value.items()}
        if isinstance(value, list):
            return [cut(v) for v in value]
        return value

    text = json.dumps(cut(tool_input), ensure_ascii=False, default=str)
    return text if len(text) <= INPUT_LIMIT else text[:INPUT_LIMIT] + "…[truncated]"


def tool_parameters(name: str, tool_input: dict[str, Any], result_text: str = "") -> dict[str, Any]:
    """Claude Code's `tool_parameters`: the command of a Bash call, an MCP tool's server, a Skill's name."""
    if name == "Bash":
        command = str(tool_input.get("command", ""))
        params: dict[str, Any] = {
            "bash_command": command.split()[0] if command.split() else "",
            "full_command": command,
        }
        for key in ("timeout", "description", "dangerouslyDisableSandbox"):
            if key in tool_input:
                params[key] = tool_input[key]
        if commit := commit_id(command, result_text):
            params["git_commit_id"] = commit
        return params
    if name.startswith("mcp__"):
        _, server, tool = (name.split("__", 2) + ["", ""])[:3]
        return {"mcp_server_name": server, "mcp_tool_name": tool}
    if name == "Skill":
        return {"skill_name": str(tool_input.get("skill") or tool_input.get("command") or "")}
    return {}


def commit_id(command: str, output: str) -> str | None:
    """The short hash `git commit` printed (`[main 1a2b3c4] message`), when the command was one."""
    import re

    if not re.search(r"\bgit\s+commit\b", command):
        return None
    found = re.search(r"^\[[^\]\s]+(?: \([^)]*\))? ([0-9a-f]{7,40})\]", output, re.MULTILINE)
    return found.group(1) if found else None


def truncated(text: str, limit: int = CONTENT_LIMIT) -> str:
    return text if len(text) <= limit else text[:limit] + "…[truncated]"
