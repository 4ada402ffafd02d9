"""One scripted turn through Claude Code and agent-tui with hooks that carry `if` conditions and `async` flags.

Every hook is the same Python recorder: it appends `{tag, event, tool_input}` to a log and exits
with the code it is given (2 blocks). The fake Messages API answers with five tool calls in one
response (`echo hi`, `ls && git push origin main`, `FOO=1 git push`, `Read .env`, `Read a.txt`),
then "Done.". Both runs' records are compared as sets of (tag, what the call was); the
background hooks are compared by whether they ran at all and whether the turn waited for them.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tests.fakeapi import FakeAPI, reply, tool_use

from .harness import cli_env

PROMPT = "Run the calls."
CALLS = [
    ("Bash", {"command": "echo hi", "description": "say hi"}),
    ("Bash", {"command": "ls && git push origin main", "description": "push"}),
    ("Bash", {"command": "FOO=1 git push", "description": "push with env"}),
    ("Read", {"file_path": "{project}/.env"}),
    ("Read", {"file_path": "{project}/a.txt"}),
]
RECORDER = """import json, sys, time
tag, code, delay, first = sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
data = json.loads(sys.stdin.read() or "{}")
if first:
    print(first, flush=True)
time.sleep(delay)
record = {"tag": tag, "event": data.get("hook_event_name"), "tool_input": data.get("tool_input"), "t": time.time()}
with open(sys.argv[1], "a") as log:
    log.write(json.dumps(record) + "\\n")
if code == 2:
    print(f"hook {tag} says no", file=sys.stderr)
sys.exit(code)
"""
#: (event, matcher, tag, exit code, delay s, first stdout line, extra handler fields)
HOOKS: list[tuple[str, str | None, str, int, float, str, dict[str, Any]]] = [
    ("PreToolUse", "Bash", "no-push", 2, 0, "", {"if": "Bash(git push *)"}),
    ("PreToolUse", "Read", "env-read", 0, 0, "", {"if": "Read(.env)"}),
    ("PreToolUse", None, "bad-rule", 0, 0, "", {"if": "Bash(git push"}),
    ("UserPromptSubmit", None, "prompt-if", 0, 0, "", {"if": "Bash(git *)"}),
    ("PostToolUse", "Bash", "async-post", 0, 3, "", {"async": True}),
    ("PostToolUse", "Read", "async-line", 0, 3, '{"async": true}', {}),
    ("Stop", None, "rewake", 2, 1, "", {"asyncRewake": True}),
]


def hook_settings(script: Path, log: Path) -> dict[str, Any]:
    """`.claude/settings.json` with one recorder per row of HOOKS."""
    block: dict[str, list[dict[str, Any]]] = {}
    for event, matcher, tag, code, delay, first, extra in HOOKS:
        command = f"{sys.executable} {script} {log} {tag} {code} {delay} '{first}'"
        group: dict[str, Any] = {"hooks": [{"type": "command", "command": command, **extra}]}
        if matcher:
            group["matcher"] = matcher
        block.setdefault(event, []).append(group)
    return {"hooks": block}


def run_one(who: str, exe: str, root: Path) -> dict[str, Any]:
    """One `-p` run: the hook records, the tool results the model saw, how long the run took, stderr."""
    project = root / f"{who}-project"
    home = root / f"home-{who}"
    project.mkdir(parents=True)
    home.mkdir()
    (project / ".env").write_text("SECRET=1\n")
    (project / "a.txt").write_text("hello\n")
    script = root / "record_hook.py"
    script.write_text(RECORDER)
    log = root / f"{who}-hooks.jsonl"
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps(hook_settings(script, log), indent=2))
    bodies: list[dict[str, Any]] = []
    answered = [0]
    asked_at: list[float] = []

    def step(body: dict[str, Any]) -> Any:
        bodies.append(body)
        asked_at.append(time.time())
        if not body.get("tools"):
            return reply("none")  # a side request (title, summary): not part of the loop
        answered[0] += 1
        if answered[0] > 1:
            return reply("Done.")
        blocks = [
            tool_use(name, {k: v.format(project=project) for k, v in args.items()}, id=f"toolu_if_{i:04d}")
            for i, (name, args) in enumerate(CALLS)
        ]
        return reply(*blocks, stop_reason="tool_use")

    api = FakeAPI(step)
    env = cli_env(who, project, home, api.base_url, trusted=True)
    allowed = ["--allowedTools", "Bash,Read"]
    if who == "claude":
        argv = [exe, "-p", PROMPT, *allowed]
    else:
        argv = [exe, "-m", "tui.cli.main", "-p", PROMPT, "--cwd", str(project), *allowed]
    started = time.time()
    try:
        proc = subprocess.run(
            argv, env=env, cwd=project, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=600
        )
    finally:
        api.stop()
    ended = time.time()
    time.sleep(4)  # a background hook that outlived the run would write now
    records = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return {
        "records": records,
        "results": tool_results(bodies),
        "bodies": bodies,
        "asked_at": asked_at,
        "started": started,
        "ended": ended,
        "proc": proc,
    }


def tool_results(bodies: list[dict[str, Any]]) -> dict[str, str]:
    """Each tool_use id's result text, from the last request that held it."""
    found: dict[str, str] = {}
    for body in bodies:
        for message in body.get("messages", []):
            if isinstance(message.get("content"), list):
                for block in message["content"]:
                    if block.get("type") == "tool_result":
                        content = block.get("content")
                        if isinstance(content, list):
                            content = "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
                        found[block["tool_use_id"]] = f"{'error: ' if block.get('is_error') else ''}{content}"
    return found


def what(record: dict[str, Any]) -> str:
    """The call a record was made for, in a few words."""
    args = record.get("tool_input") or {}
    if "command" in args:
        return f"{record['event']} Bash {args['command']}"
    if "file_path" in args:
        return f"{record['event']} Read {Path(args['file_path']).name}"
    return str(record["event"])


def summary(run: dict[str, Any]) -> dict[str, Any]:
    """What a run did, comparable across the two CLIs."""
    records = run["records"]
    synchronous = sorted(
        {f"{r['tag']}: {what(r)}" for r in records if r["tag"] not in ("async-post", "async-line", "rewake")}
    )
    background = {tag: sum(1 for r in records if r["tag"] == tag) for tag in ("async-post", "async-line")}
    blocked = sorted(i for i, text in run["results"].items() if "says no" in text)
    second = run["asked_at"][1] if len(run["asked_at"]) > 1 else run["ended"]
    waited = any(r["t"] <= second for r in records if r["tag"] in ("async-post", "async-line"))
    return {"hooks": synchronous, "background": background, "blocked": blocked, "waited for async hooks": waited}


def rewake_messages(run: dict[str, Any]) -> list[str]:
    """The asyncRewake messages the model got, with the run's own paths taken out."""
    found = []
    for body in run["bodies"]:
        last = body.get("messages", [{}])[-1]
        content = last.get("content")
        if last.get("role") == "user" and isinstance(content, list) and content and content[0].get("type") == "text":
            text = str(content[0].get("text", ""))
            if "Stop hook feedback" in text:
                found.append(text.split("[", 1)[0] + text.rsplit("]", 1)[-1])
    return found
