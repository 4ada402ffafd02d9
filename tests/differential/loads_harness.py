"""Run Claude Code and agent-tui `-p --output-format stream-json --verbose` on one folder and say what each loaded.

What loaded: the project's commands, agents and skills from the `system`/`init` line; the memory files in
the first request (Claude Code: `Contents of PATH (…)` in its first user message; agent-tui:
`<memory_file path=…>` in the system prompt); and the `.claude/rules` files sent after each tool result
while the scripted turn reads `READS` one by one.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.fakeapi import FakeAPI, reply, tool_use

from .harness import REPO, cli_env

#: what each CLI has built in (left out of the comparison)
CLAUDE_AGENTS = {"claude", "Explore", "general-purpose", "Plan", "statusline-setup"}
AGENT_TUI_AGENTS = {"general-purpose", "Explore", "Plan"}
CC_MEMORY = re.compile(r"^Contents of (\S+) \(", re.M)
OUR_MEMORY = re.compile(r'<memory_file path="([^"]+)"')
RULE_SENT = re.compile(r"^Contents of (\S+):\n", re.M)


@dataclass
class Loaded:
    """What one CLI loaded in one folder (paths relative to the folder)."""

    commands: set[str] = field(default_factory=set)
    #: (name, source, version) per plugin the folder's settings enable (Claude Code's built-in ones left out)
    plugins: set[tuple[str, str, str]] = field(default_factory=set)
    agents: set[str] = field(default_factory=set)
    skills: set[str] = field(default_factory=set)
    memory: list[str] = field(default_factory=list)
    #: per file read, the rules sent after its result
    rules_after: list[list[str]] = field(default_factory=list)
    stderr: str = ""


def install_newest_claude(where: Path) -> str:
    """`npm install` the newest `@anthropic-ai/claude-code` (asked of the registry: not a cached older one)."""
    prefix = where / "cc"
    subprocess.run(
        [
            "npm",
            "install",
            "--silent",
            "--no-audit",
            "--no-fund",
            "--prefix",
            str(prefix),
            "@anthropic-ai/claude-code@latest",
        ],
        check=True,
        stdout=subprocess.DEVNULL,
        timeout=900,
    )
    return str(prefix / "node_modules" / ".bin" / "claude")


def _ours(name: str, names: set[str]) -> bool:
    """Whether a command or skill name is the folder's own, or an enabled plugin's (`plugin:name`)."""
    return name in names or (":" in name and f"plugin={name.split(':')[0]}" in names)


def project_names(project: Path) -> set[str]:
    """The command and skill names the folder's own files define (`a/b.md` is `a:b`), and `plugin=NAME` per plugin
    its settings enable."""
    names: set[str] = set()
    commands = project / ".claude" / "commands"
    if commands.is_dir():
        names |= {":".join(p.relative_to(commands).with_suffix("").parts) for p in commands.rglob("*.md")}
    skills = project / ".claude" / "skills"
    if skills.is_dir():
        names |= {p.name for p in skills.iterdir() if (p / "SKILL.md").is_file()}
    settings = project / ".claude" / "settings.json"
    if settings.is_file():
        enabled = json.loads(settings.read_text()).get("enabledPlugins", {})
        names |= {f"plugin={plugin_id.split('@')[0]}" for plugin_id, on in enabled.items() if on}
    return names


def _relative(path: str, project: Path, home: Path) -> str:
    for base, mark in ((project, "."), (home, "~")):
        try:
            return f"{mark}/{Path(path).relative_to(base).as_posix()}"
        except ValueError:
            continue
    return path


def run_folder(who: str, exe: str, source: Path, root: Path, reads: list[str], user_files: dict[str, str]) -> Loaded:
    """Copy `source` under `root`, run `who` on it with a turn that reads `reads`, and say what it loaded."""
    project = root / f"{who}-project"
    home = root / f"{who}-home"
    shutil.copytree(source, project, symlinks=True)
    home.mkdir()
    claude_home = home / ".claude"
    for rel, text in user_files.items():  # the user's ~/.claude files (rules, commands)
        target = claude_home / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    bodies: list[dict[str, Any]] = []
    step_no = [0]

    def step(body: dict[str, Any]) -> Any:
        if not body.get("tools"):
            return reply("none")  # a side request (title, summary)
        bodies.append(body)
        step_no[0] += 1
        if step_no[0] <= len(reads):
            path = str(project / reads[step_no[0] - 1])
            return reply(tool_use("Read", {"file_path": path}, id=f"toolu_{step_no[0]:04d}"), stop_reason="tool_use")
        return reply("Done.")

    api = FakeAPI(step)
    env = cli_env(who, project, home, api.base_url, trusted=True)
    if who == "claude":
        env["CLAUDE_CONFIG_DIR"] = str(claude_home)
        (claude_home / ".claude.json").parent.mkdir(parents=True, exist_ok=True)
        (claude_home / ".claude.json").write_text((home / ".claude.json").read_text())
        argv = [exe, "-p", "Read the files.", "--output-format", "stream-json", "--verbose", "--allowedTools", "Read"]
    else:
        env["PYTHONPATH"] = str(REPO)
        env["CLAUDE_CONFIG_DIR"] = str(claude_home)
        argv = [
            exe,
            "-m",
            "tui.cli.main",
            "-p",
            "Read the files.",
            "--cwd",
            str(project),
            "--output-format",
            "stream-json",
        ]
        argv += ["--verbose", "--allowedTools", "Read"]
    try:
        proc = subprocess.run(
            argv, env=env, cwd=project, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=600
        )
    finally:
        api.stop()
    return _loaded(who, proc, bodies, project, home)


def _loaded(
    who: str, proc: subprocess.CompletedProcess[str], bodies: list[dict[str, Any]], project: Path, home: Path
) -> Loaded:
    out = Loaded(stderr=proc.stderr)
    names = project_names(project)
    for line in proc.stdout.splitlines():
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if obj.get("type") == "system" and obj.get("subtype") == "init":
            built_in = CLAUDE_AGENTS if who == "claude" else AGENT_TUI_AGENTS
            out.commands = {c for c in obj.get("slash_commands", []) if _ours(c, names)}
            out.agents = set(obj.get("agents", [])) - built_in
            out.skills = {c for c in obj.get("skills", []) if _ours(c, names)}
            out.plugins = {
                (p.get("name", ""), p.get("source", ""), p.get("version", ""))
                for p in obj.get("plugins", [])
                if p.get("path") != "builtin"
            }
            break
    if not bodies:
        return out
    first = bodies[0]
    if who == "claude":
        text = "\n".join(_texts(first["messages"][0]["content"]))
        found = CC_MEMORY.findall(text)
    else:
        found = OUR_MEMORY.findall(json.dumps(first.get("system")).replace('\\"', '"'))
    out.memory = [_relative(p, project, home) for p in found]
    for body in bodies[1:]:
        last = body["messages"][-1]["content"]
        sent = [m for t in _texts(last) for m in RULE_SENT.findall(t)]
        out.rules_after.append([_relative(p, project, home) for p in sent])
    return out


def _texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    return [str(b.get("text", "")) for b in content if isinstance(b, dict) and b.get("type") == "text"]


def differences(cc: Loaded, ours: Loaded) -> list[str]:
    """One line per way agent-tui loaded something other than Claude Code did."""
    lines = []
    for what in ("commands", "agents", "skills", "plugins"):
        a, b = getattr(cc, what), getattr(ours, what)
        if a != b:
            lines.append(f"{what}: only Claude Code {sorted(a - b)}, only agent-tui {sorted(b - a)}")
    if cc.memory != ours.memory:
        lines.append(f"memory: Claude Code {cc.memory}, agent-tui {ours.memory}")
    if cc.rules_after != ours.rules_after:
        lines.append(f"rules after each read: Claude Code {cc.rules_after}, agent-tui {ours.rules_after}")
    return lines
