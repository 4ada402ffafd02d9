"""Differential: `agent-tui mcp …` answers as `claude mcp …` does (stdout, stderr, exit code), offline.

Both get the same trusted project, a real stdio server (MCPServer from the `mcp` package) and a
URL nothing listens on. The files written differ by design (Claude Code: `~/.claude.json`;
agent-tui: `settings.toml`), so the `File modified:` lines are left out of the comparison.
Run with `.venv/bin/python -m pytest -m differential tests/differential/test_mcp_cli.py`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.unit.mcp.test_mcp_cli import SERVER

from .harness import find_or_install_claude

pytestmark = [pytest.mark.differential, pytest.mark.timeout(900)]
REPO = Path(__file__).resolve().parents[2]
#: run in order in both; {py} and {srv} are filled in
SCRIPT = [
    ["list"],
    ["add", "ok", "--", "{py}", "{srv}"],
    ["add", "ok", "--", "echo"],
    ["add", "--transport", "http", "web", "http://127.0.0.1:9/mcp", "--header", "Authorization: Bearer x"],
    ["add", "-s", "user", "-t", "sse", "old", "http://127.0.0.1:9/sse"],
    ["add", "-s", "project", "proj", "-e", "K=v", "--", "{py}", "-c", "pass"],
    ["add-json", "js", '{"type":"stdio","command":"{py}","args":["-c","pass"]}'],
    ["add-json", "-s", "project", "pj", '{"type":"http","url":"http://127.0.0.1:9/x","headers":{"A":"b"}}'],
    ["add", "-t", "ws", "w", "ws://x"],
    ["add", "-s", "bogus", "y", "--", "echo"],
    ["add", "-t", "http", "h2", "http://x", "-H", "nocolon"],
    ["add", "x", "-e", "NOEQ", "--", "echo"],
    ["add", "x"],
    ["list"],
    ["get", "ok"],
    ["get", "web"],
    ["get", "proj"],
    ["get", "nope"],
    ["remove", "nope"],
    ["remove", "zz", "-s", "user"],
    ["add", "-s", "user", "web", "--", "echo", "hi"],
    ["remove", "web"],
    ["remove", "web", "-s", "user"],
    ["remove", "js"],
    ["remove", "proj", "-s", "project"],
    ["remove", "old"],
    ["list"],
]
#: commands whose stderr wording differs on purpose
#: (agent-tui has three scopes, Claude Code names eight)
OWN_WORDING = {"add -s"}
#: Claude Code's config diagnostics section after `list` (agent-tui does not print it)
DIAGNOSTICS = "\nMCP config diagnostics"


def _normalise(text: str, project: Path, home: Path) -> str:
    for user_file in (home / ".claude.json", home / ".config" / "agent-tui" / "settings.toml"):
        text = text.replace(str(user_file), "<user file>")
    lines = [
        line
        for line in text.replace(str(project), "<project>").replace(str(home), "<home>").splitlines()
        if not line.startswith("File modified:")
    ]
    text = "\n".join(lines).replace("`claude`", "`<cli>`").replace("claude mcp", "<cli> mcp")
    return text.replace("`agent-tui`", "`<cli>`").replace("agent-tui mcp", "<cli> mcp")


def _run(who: str, exe: str, root: Path, script: list[list[str]]) -> list[tuple[int, str, str]]:
    home, project = root / who / "home", root / who / "proj"
    project.mkdir(parents=True)
    home.mkdir(parents=True)
    server = root / "tiny_server.py"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CLAUDE", "AGENT_TUI"))}
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), XDG_DATA_HOME=str(home / ".local/share"))
    if who == "claude":
        env.update(
            CLAUDE_CONFIG_DIR=str(home),
            DISABLE_TELEMETRY="1",
            DISABLE_AUTOUPDATER="1",
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        )
        (home / ".claude.json").write_text(
            json.dumps({"hasCompletedOnboarding": True, "projects": {str(project): {"hasTrustDialogAccepted": True}}})
        )
        prefix = [exe, "mcp"]
    else:
        env["PYTHONPATH"] = str(REPO)
        (home / ".config" / "agent-tui").mkdir(parents=True)
        (home / ".config" / "agent-tui" / "settings.toml").write_text(
            f"trusted_folders = [{json.dumps(str(project))}]\n"
        )
        prefix = [exe, "-m", "tui.cli.main", "mcp"]
    results = []
    for words in script:
        argv = [w.replace("{py}", sys.executable).replace("{srv}", str(server)) for w in words]
        done = subprocess.run(
            [*prefix, *argv],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
        )
        out = done.stdout.split(DIAGNOSTICS)[0].rstrip("\n")
        results.append(
            (done.returncode, _normalise(out, project, home), _normalise(done.stderr.strip(), project, home))
        )
    return results


def test_agent_tui_mcp_answers_as_claude_mcp() -> None:
    if not shutil.which("npm") and not os.environ.get("AGENT_TUI_CLAUDE"):
        pytest.skip("needs npm (or AGENT_TUI_CLAUDE) to get Claude Code")
    root = Path(tempfile.mkdtemp(prefix="differential-mcp-"))
    try:
        (root / "tiny_server.py").write_text(SERVER)
        claude = _run("claude", find_or_install_claude(root), root, SCRIPT)
        ours = _run("agent-tui", sys.executable, root, SCRIPT)
        differences = []
        for words, theirs, mine in zip(SCRIPT, claude, ours):
            command = " ".join(words[:2])
            if theirs[0] != mine[0]:
                differences.append(f"{command}: exit {mine[0]}, Claude Code {theirs[0]}")
            if theirs[1] != mine[1]:  # `list` too, in Claude Code's order (user, project, local scopes)
                differences.append(f"{command}: stdout\n{mine[1]}\n--- Claude Code:\n{theirs[1]}")
            if command not in OWN_WORDING and theirs[2] != mine[2]:
                differences.append(f"{command}: stderr\n{mine[2]}\n--- Claude Code:\n{theirs[2]}")
        assert not differences, "\n\n".join(differences)
    finally:
        shutil.rmtree(root, ignore_errors=True)
