"""Run one scripted turn of many Bash calls through Claude Code and through agent-tui, and compare.

Both CLIs get the same project (rules in `.claude/settings.json`), the same `--allowedTools` and the
same fake Messages API answer: one response holding a `Bash` tool_use per command. In `-p` an "ask"
becomes a refusal, so each tool_result says whether the command ran or was refused.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.fakeapi import FakeAPI, reply, tool_use

from .commands import ALLOWED_TOOLS, PROJECT_SETTINGS

REPO = Path(__file__).resolve().parents[2]
#: the newest release (the registry's `latest` tag, asked each time: a cached list once gave an older one)
CLAUDE_PACKAGE = "@anthropic-ai/claude-code@latest"
PROMPT = "Run the commands."
MARKER_SCRIPT = '#!/bin/sh\necho "{name} $*" >> "$(dirname "$0")/{up}marker.log"\n'
AGENT_REFUSALS = ("Permission denied:", "Permission to ")


@dataclass
class RunResult:
    """What one CLI did with every command in one folder."""

    verdicts: list[str]  # "ran" | "refused" | "missing", one per command
    contents: list[str]
    marker: str
    stderr: str


def find_or_install_claude(tmp: Path) -> str:
    """`$AGENT_TUI_CLAUDE` when set, else `npm install --prefix <tmp> @anthropic-ai/claude-code`."""
    given = os.environ.get("AGENT_TUI_CLAUDE")
    if given:
        return given
    prefix = tmp / "cc"
    subprocess.run(
        [
            "npm",
            "install",
            "--silent",
            "--prefer-online",
            "--no-audit",
            "--no-fund",
            "--prefix",
            str(prefix),
            CLAUDE_PACKAGE,
        ],
        check=True,
        stdout=subprocess.DEVNULL,
        timeout=600,
    )
    return str(prefix / "node_modules" / ".bin" / "claude")


def make_project(path: Path) -> None:
    """The project every command runs in: files, marker-writing project code, an untrusted-looking repo."""
    path.mkdir(parents=True)
    (path / "a.txt").write_text("hello\na line\n")
    (path / "b.txt").write_text("hello\nb line\n")
    (path / "src").mkdir()
    (path / "src" / "m.py").write_text("print('m')\n")
    (path / "secret.txt").write_text("secret\n")
    (path / "protected").mkdir()
    outside = path.parent / f"{path.name}-outside"
    outside.mkdir()
    (outside / "x").write_text("outside\n")
    (path / "link_out").symlink_to(outside)
    scripts = {
        "bin/ls": ("bin-ls", "../"),
        "bin2/ls": ("bin2-ls", "../"),
        "hooks/x.sh": ("hooks-x", "../"),
        "hooks/fsmon.sh": ("fsmonitor", "../"),
        "x.sh": ("x.sh", ""),
        "tool": ("tool", ""),
    }
    for rel, (name, up) in scripts.items():
        script = path / rel
        script.parent.mkdir(exist_ok=True)
        script.write_text(MARKER_SCRIPT.format(name=name, up=up))
        script.chmod(0o755)
    (path / ".claude").mkdir()
    (path / ".claude" / "settings.json").write_text(json.dumps(PROJECT_SETTINGS, indent=2))
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "core.hooksPath=/dev/null"]
    subprocess.run([*git, "init", "-q", str(path)], check=True)
    subprocess.run([*git, "-C", str(path), "add", "a.txt", "b.txt"], check=True)
    subprocess.run([*git, "-C", str(path), "commit", "-qm", "init"], check=True)
    (path / "a.txt").write_text("hello\na changed line\n")  # so `git diff` has something to show
    with open(path / ".git" / "config", "a") as config:
        config.write("[core]\n\tfsmonitor = hooks/fsmon.sh\n\tpager = hooks/x.sh\n[diff]\n\texternal = hooks/x.sh\n")


def _tool_results(bodies: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for body in bodies:
        for message in body.get("messages", []):
            if isinstance(message.get("content"), list):
                for block in message["content"]:
                    if block.get("type") == "tool_result":
                        found[block["tool_use_id"]] = block
    return found


def _text(block: dict[str, Any]) -> str:
    content = block.get("content")
    if isinstance(content, list):
        return "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return str(content or "")


def _cc_refused(block: dict[str, Any]) -> bool:
    """Claude Code reports a refusal as an error result that is not a command's own failure."""
    text = _text(block)
    return bool(block.get("is_error")) and not text.startswith("Exit code") and "Command timed out" not in text


def _agent_refused(block: dict[str, Any]) -> bool:
    return bool(block.get("is_error")) and _text(block).startswith(AGENT_REFUSALS)


def cli_env(who: str, project: Path, home: Path, base_url: str, trusted: bool) -> dict[str, str]:
    """The environment of one CLI run: a private home, the fake API, and the folder trusted or not."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CLAUDE", "AGENT_TUI"))}
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_DATA_HOME=str(home / ".local/share"),
        XDG_STATE_HOME=str(home / ".local/state"),
        ANTHROPIC_BASE_URL=base_url,
        ANTHROPIC_API_KEY="sk-test",
    )
    if who == "claude":
        env.update(
            CLAUDE_CONFIG_DIR=str(home),
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
            DISABLE_TELEMETRY="1",
            DISABLE_AUTOUPDATER="1",
            DISABLE_ERROR_REPORTING="1",
            DISABLE_BUG_COMMAND="1",
        )
        state = {
            "hasCompletedOnboarding": True,
            "theme": "dark",
            "customApiKeyResponses": {"approved": ["sk-test"], "rejected": []},
            "projects": {str(project): {"hasTrustDialogAccepted": trusted}},
        }
        (home / ".claude.json").write_text(json.dumps(state))
    else:
        env["PYTHONPATH"] = str(REPO)
        config = home / ".config" / "agent-tui"
        config.mkdir(parents=True)
        # like with like: Claude Code runs Bash unsandboxed unless told otherwise, and a contained command runs
        # without a question in agent-tui (sandbox.auto_allow), which would hide every verdict compared here
        lines = ["[sandbox]", "enabled = false"]
        if trusted:
            lines.insert(0, f"trusted_folders = [{json.dumps(str(project))}]")
        (config / "settings.toml").write_text("\n".join(lines) + "\n")
    return env


def run_one(who: str, exe: str, commands: list[str], root: Path, trusted: bool) -> RunResult:
    """One `-p` run of `who` ("claude" | "agent-tui") over `commands` in a fresh project under `root`."""
    project = root / f"{who}-{'trusted' if trusted else 'untrusted'}"
    home = root / f"home-{project.name}"
    make_project(project)
    home.mkdir()
    bodies: list[dict[str, Any]] = []
    ids = [f"toolu_{i:04d}" for i in range(len(commands))]
    first_done = [False]

    def step(body: dict[str, Any]) -> Any:
        bodies.append(body)
        if not body.get("tools"):
            return reply("none")  # a side request (title, summary): not part of the loop
        if first_done[0]:
            return reply("Done.")
        first_done[0] = True
        calls = [tool_use("Bash", {"command": c, "description": "run"}, id=i) for c, i in zip(commands, ids)]
        return reply(*calls, stop_reason="tool_use")

    api = FakeAPI(step)
    env = cli_env(who, project, home, api.base_url, trusted)
    if who == "claude":
        argv = [exe, "-p", PROMPT, "--allowedTools", *ALLOWED_TOOLS]
    else:
        argv = [exe, "-m", "tui.cli.main", "-p", PROMPT, "--cwd", str(project), "--allowedTools", *ALLOWED_TOOLS]
    try:
        proc = subprocess.run(
            argv, env=env, cwd=project, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=900
        )
    finally:
        api.stop()
    results = _tool_results(bodies)
    refused = _cc_refused if who == "claude" else _agent_refused
    verdicts = ["missing" if i not in results else "refused" if refused(results[i]) else "ran" for i in ids]
    contents = [_text(results[i]) if i in results else "" for i in ids]
    marker = project / "marker.log"
    return RunResult(verdicts, contents, marker.read_text() if marker.exists() else "", proc.stderr)


def agent_python() -> str:
    return sys.executable


def table(commands: list[str], runs: dict[str, RunResult]) -> str:
    """A markdown table: command, then each run's verdict; and counts by verdict pair."""
    names = list(runs)
    lines = ["| # | command | " + " | ".join(names) + " |", "|---|---|" + "---|" * len(names)]
    for i, command in enumerate(commands):
        shown = command.replace("\n", "⏎").replace("|", "\\|")
        lines.append(f"| {i + 1} | `{shown}` | " + " | ".join(runs[n].verdicts[i] for n in names) + " |")
    lines.append("")
    for folder in ("trusted", "untrusted"):
        cc, ours = runs.get(f"claude {folder}"), runs.get(f"agent-tui {folder}")
        if cc and ours:
            pairs = Counter(f"Claude Code {a} / agent-tui {b}" for a, b in zip(cc.verdicts, ours.verdicts))
            lines.append(f"**{folder}**: " + ", ".join(f"{k}: {v}" for k, v in sorted(pairs.items())))
            lines.append("")
    return "\n".join(lines)


def more_permissive(commands: list[str], cc: RunResult, ours: RunResult) -> list[str]:
    """Commands agent-tui ran that Claude Code refused (or never reported)."""
    return [c for c, a, b in zip(commands, cc.verdicts, ours.verdicts) if b == "ran" and a != "ran"]


def cleanup(root: Path) -> None:
    shutil.rmtree(root, ignore_errors=True)
