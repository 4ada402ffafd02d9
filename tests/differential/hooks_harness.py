"""Run one scripted turn through Claude Code and through agent-tui with the same recording hook.

The hook (a Python script) appends what it was given to a log: its stdin JSON, a few
environment variables and its cwd. The project's `.claude/settings.json` registers it for
PreToolUse, PostToolUse, UserPromptSubmit and Stop; the fake Messages API answers with one
Bash call, then "Done.". Both runs' records are then compared key by key.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.fakeapi import FakeAPI, reply, tool_use

from .harness import cli_env

PROMPT = "Say hi with Bash."
COMMAND = "echo hi"
EVENTS = ("PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop")
ENV_KEYS = ("CLAUDE_PROJECT_DIR", "AGENT_TUI_PROJECT_DIR")
#: values that name this run (ids, paths), compared by presence only
RUN_SPECIFIC = {"session_id", "transcript_path", "cwd", "tool_use_id", "prompt_id", "duration_ms"}
RECORDER = """import json, os, sys
data = sys.stdin.read()
record = {"stdin": json.loads(data), "env": {k: os.environ.get(k) for k in %r}, "cwd": os.getcwd()}
with open(sys.argv[1], "a") as log:
    log.write(json.dumps(record) + "\\n")
"""


def hook_settings(script: Path, log: Path) -> dict[str, Any]:
    command = f"{sys.executable} {script} {log}"
    handler = {"type": "command", "command": command}
    return {
        "hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [handler]}],
            "PostToolUse": [{"matcher": "Bash", "hooks": [handler]}],
            "UserPromptSubmit": [{"hooks": [handler]}],
            "Stop": [{"hooks": [handler]}],
        }
    }


def run_one(who: str, exe: str, root: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]], str]:
    """One `-p` run; returns the hook records, the request bodies the fake API saw, and stderr."""
    project = root / f"{who}-project"
    home = root / f"home-{who}"
    project.mkdir(parents=True)
    home.mkdir()
    script = root / "record_hook.py"
    script.write_text(RECORDER % (ENV_KEYS,))
    log = root / f"{who}-hooks.jsonl"
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps(hook_settings(script, log), indent=2))
    bodies: list[dict[str, Any]] = []
    called = [False]

    def step(body: dict[str, Any]) -> Any:
        bodies.append(body)
        if not body.get("tools"):
            return reply("none")  # a side request (title, summary): not part of the loop
        if called[0]:
            return reply("Done.")
        called[0] = True
        return reply(
            tool_use("Bash", {"command": COMMAND, "description": "say hi"}, id="toolu_hook_0001"),
            stop_reason="tool_use",
        )

    api = FakeAPI(step)
    env = cli_env(who, project, home, api.base_url, trusted=True)
    if who == "claude":
        argv = [exe, "-p", PROMPT, "--allowedTools", "Bash(echo:*)"]
    else:
        argv = [exe, "-m", "tui.cli.main", "-p", PROMPT, "--cwd", str(project), "--allowedTools", "Bash(echo:*)"]
    try:
        proc = subprocess.run(
            argv, env=env, cwd=project, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=600
        )
    finally:
        api.stop()
    records = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return records, bodies, proc.stderr


def by_event(records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The first record of each event."""
    found: dict[str, dict[str, Any]] = {}
    for record in records:
        found.setdefault(record["stdin"].get("hook_event_name", "?"), record)
    return found


def compare(cc: dict[str, Any], ours: dict[str, Any]) -> list[str]:
    """Differences between two records of one event: keys, values (ids and paths by presence), env."""
    problems = []
    a, b = cc["stdin"], ours["stdin"]
    for key in sorted(set(a) | set(b)):
        if key not in b:
            problems.append(f"agent-tui lacks `{key}` (Claude Code: {json.dumps(a[key])[:120]})")
        elif key not in a:
            problems.append(f"agent-tui has `{key}` that Claude Code does not send")
        elif key not in RUN_SPECIFIC and a[key] != b[key]:
            problems.append(f"`{key}`: Claude Code {json.dumps(a[key])[:200]} / agent-tui {json.dumps(b[key])[:200]}")
    for key in ("CLAUDE_PROJECT_DIR",):
        if (cc["env"].get(key) is None) != (ours["env"].get(key) is None):
            problems.append(f"env {key}: Claude Code {cc['env'].get(key)!r} / agent-tui {ours['env'].get(key)!r}")
        elif (
            cc["env"].get(key)
            and Path(cc["env"][key]).name.split("-")[-1] != Path(ours["env"][key]).name.split("-")[-1]
        ):
            problems.append(f"env {key} is not the project folder: {ours['env'][key]!r}")
    if Path(cc["cwd"]).name.split("-")[-1] != Path(ours["cwd"]).name.split("-")[-1]:
        problems.append(f"cwd: Claude Code {cc['cwd']} / agent-tui {ours['cwd']}")
    return problems


def report(cc_records: list[dict[str, Any]], our_records: list[dict[str, Any]]) -> tuple[str, list[str]]:
    """A markdown report of both runs' hook inputs, and every difference found."""
    cc, ours = by_event(cc_records), by_event(our_records)
    lines = ["| event | Claude Code keys | agent-tui keys | differences |", "|---|---|---|---|"]
    problems: list[str] = []
    for event in EVENTS:
        if event not in cc or event not in ours:
            missing = [w for w, got in (("Claude Code", cc), ("agent-tui", ours)) if event not in got]
            problems.append(f"{event}: no record from {' and '.join(missing)}")
            lines.append(
                f"| {event} | {'-' if event not in cc else ', '.join(sorted(cc[event]['stdin']))} | "
                f"{'-' if event not in ours else ', '.join(sorted(ours[event]['stdin']))} | missing |"
            )
            continue
        diff = compare(cc[event], ours[event])
        problems += [f"{event}: {d}" for d in diff]
        lines.append(
            f"| {event} | {', '.join(sorted(cc[event]['stdin']))} | {', '.join(sorted(ours[event]['stdin']))} | "
            f"{'; '.join(diff).replace('|', '/') or 'none'} |"
        )
    return "\n".join(lines), problems
