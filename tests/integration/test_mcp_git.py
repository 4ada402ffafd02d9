"""A real server from PyPI, `mcp-server-git`, on a temp repository, driven through `-p` as a user would."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakeapi import FakeAPI
from tests.fakeapi.script import reply, text, tool_use
from tests.integration.mcp_helpers import pypi_env, pypi_servers
from tests.integration.test_mcp_headless import _run


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True).stdout


@pytest.fixture(scope="module")
def git_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A repository with one commit and a changed file."""
    repo = tmp_path_factory.mktemp("git-repo")
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "config", "user.email", "ada@example.com")
    _git(repo, "config", "user.name", "Ada")
    (repo / "notes.txt").write_text("first\n")
    _git(repo, "add", "notes.txt")
    _git(repo, "commit", "-q", "-m", "Add the first note")
    (repo / "notes.txt").write_text("first\nsecond\n")
    return repo


def test_mcp_server_git_reads_through_the_gate_and_a_write_is_denied(
    tmp_path_factory: pytest.TempPathFactory, git_repo: Path, tmp_path: Path
) -> None:
    target = pypi_servers(tmp_path_factory)
    server = {
        "command": sys.executable,
        "args": ["-m", "mcp_server_git", "--repository", str(git_repo)],
        "env": pypi_env(target),
    }
    repo = str(git_repo)
    script = [
        reply(
            tool_use("mcp__git__git_status", {"repo_path": repo}),
            tool_use("mcp__git__git_log", {"repo_path": repo}),
            stop_reason="tool_use",
        ),
        reply(tool_use("mcp__git__git_add", {"repo_path": repo, "files": ["notes.txt"]}), stop_reason="tool_use"),
        reply(text("notes.txt has one more line than the first commit."), stop_reason="end_turn"),
    ]
    with FakeAPI(script) as api:
        proc = _run(
            [
                "what changed in the repository?",
                "--mcp-config",
                json.dumps({"mcpServers": {"git": server}}),
                "--allowedTools",
                "mcp__git__git_status,mcp__git__git_log",
            ],
            git_repo,
            tmp_path,
            api.base_url,
        )
        bodies = [r.body for r in api.message_requests]
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "notes.txt has one more line than the first commit."
    offered = {t["name"]: t for t in bodies[0]["tools"]}
    assert {"mcp__git__git_status", "mcp__git__git_log", "mcp__git__git_add", "mcp__git__git_commit"} <= offered.keys()
    assert "repo_path" in offered["mcp__git__git_status"]["input_schema"]["properties"]
    status, log = bodies[1]["messages"][-1]["content"]  # the real server's answers reached the model
    assert not status.get("is_error") and not log.get("is_error"), (status, log)
    assert "modified:" in status["content"] and "notes.txt" in status["content"]
    assert "Add the first note" in log["content"] and "Ada" in log["content"]
    denied = bodies[2]["messages"][-1]["content"][0]  # a write tool not allowed: -p cannot ask, so it is denied
    assert denied["is_error"] and "mcp__git__git_add was not granted" in denied["content"], denied
    assert _git(git_repo, "diff", "--cached", "--name-only") == ""  # nothing was staged
