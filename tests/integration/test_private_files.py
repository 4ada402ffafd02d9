"""Files that can hold prompts, file contents or command output are 0600 in 0700 folders (issue 32).

The footprint of a real `-p` run (transcript, MCP server log, background task output, checkpoints) is walked
and every file and folder agent-tui keeps is checked; files and folders left wider by an older version are
tightened on the next write. The prompt history and an export are checked through their writers.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakeapi import FakeAPI
from tests.fakeapi.script import reply, text, tool_use
from tests.integration.helpers import make_session
from tests.integration.mcp_helpers import ROOT
from tui.agent.history.transcript import project_slug
from tui.system.private_files import open_private, private_dir

KITCHEN = {"command": sys.executable, "args": ["-m", "tests.mcp_servers.kitchen"], "cwd": str(ROOT)}


def mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def wide(root: Path) -> list[str]:
    """Every file under `root` that is not 0600 and every folder that is not 0700 (with its mode)."""
    found = []
    for folder, dirs, files in os.walk(root):
        for name in dirs:
            if mode(Path(folder, name)) != 0o700:
                found.append(f"{Path(folder, name)} {oct(mode(Path(folder, name)))}")
        for name in files:
            if mode(Path(folder, name)) != 0o600:
                found.append(f"{Path(folder, name)} {oct(mode(Path(folder, name)))}")
    return found


@pytest.fixture
def umask_022():
    old = os.umask(0o022)  # what most systems run with: without care, files come out 0644
    yield
    os.umask(old)


def test_a_print_runs_footprint_is_private_and_older_files_are_tightened(tmp_path: Path, umask_022) -> None:
    project, home, temp = tmp_path / "proj", tmp_path / "home", tmp_path / "tmp"
    for folder in (project, home, temp):
        folder.mkdir()
    data = home / "data" / "agent-tui"
    (home / "config" / "agent-tui").mkdir(parents=True)
    (home / "config" / "agent-tui" / "settings.toml").write_text("[sandbox]\nenabled = false\n")
    old_log = data / "mcp-logs" / project_slug(project) / "kitchen.log"  # an older version left it 0644 in 0755
    old_log.parent.mkdir(parents=True, mode=0o755)
    old_log.write_text("--- an earlier run\n")
    os.chmod(old_log, 0o644)
    for folder in (data, data / "mcp-logs", old_log.parent):
        os.chmod(folder, 0o755)
    script = [
        reply(tool_use("Bash", {"command": "echo secret-output", "run_in_background": True}), stop_reason="tool_use"),
        reply(
            tool_use("Bash", {"command": f"stat -c '%a' {temp}/agent-tui-task-* > {project}/task-modes.txt"}),
            stop_reason="tool_use",
        ),
        reply(tool_use("Write", {"file_path": str(project / "a.txt"), "content": "hello\n"}), stop_reason="tool_use"),
        reply(tool_use("mcp__kitchen__add", {"a": 2, "b": 3}), stop_reason="tool_use"),
        reply(text("Done."), stop_reason="end_turn"),
    ]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "XDG_"))}
    with FakeAPI(script) as api:
        env.update(
            ANTHROPIC_BASE_URL=api.base_url,
            ANTHROPIC_API_KEY="sk-test",
            XDG_CONFIG_HOME=str(home / "config"),
            XDG_DATA_HOME=str(home / "data"),
            TMPDIR=str(temp),
            PYTHONPATH=str(ROOT),
        )
        config = json.dumps({"mcpServers": {"kitchen": KITCHEN}})
        proc = subprocess.run(
            [sys.executable, "-m", "tui.cli.main", "-p", "go", "--mcp-config", config]
            + ["--permission-mode", "bypassPermissions", "--cwd", str(project)],
            env=env,
            capture_output=True,
            text=True,
            timeout=90,
        )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "Done."
    transcripts = list(data.rglob("*.jsonl"))
    assert transcripts and "secret-output" in "".join(t.read_text() for t in transcripts)
    assert "earlier run" in old_log.read_text() and "starting" in old_log.read_text()  # appended to, not replaced
    assert list(data.rglob("*.manifest*")) or list(data.rglob("objects"))  # the Write made a checkpoint
    assert wide(data) == []
    assert mode(data) == 0o700
    results = [line for t in transcripts for line in t.read_text().splitlines() if "tool_result" in line]
    assert (project / "task-modes.txt").exists(), results
    task_modes = (project / "task-modes.txt").read_text().split()
    assert task_modes and set(task_modes) == {"600"}  # the background task's output, while it existed


def test_the_prompt_history_and_an_export_are_private(tmp_path: Path, monkeypatch, umask_022) -> None:
    from tui.agent.history.export import export_session
    from tui.ui.prompt_history import PromptHistory, history_file

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    project = tmp_path / "proj"
    project.mkdir()
    path = history_file(project)
    path.parent.mkdir(parents=True, mode=0o755)
    path.write_text('"an older prompt"\n')
    os.chmod(path, 0o644)
    os.chmod(path.parent, 0o755)
    assert PromptHistory(path).add("deploy with the token in it") is None
    assert (mode(path), mode(path.parent)) == (0o600, 0o700)
    assert PromptHistory(path).load() == ["an older prompt", "deploy with the token in it"]

    with FakeAPI([reply(text("ok"))]) as api:
        session, _ = make_session(monkeypatch, api.base_url, project, sessions_dir=tmp_path / "sessions")
        session.run_turn("export me")
        md, jsonl = export_session(session)
        named = tmp_path / "shared"
        named.mkdir(mode=0o755)
        os.chmod(named, 0o755)
        md2, _ = export_session(session, named)
        session.close()
    assert jsonl is not None and (mode(md), mode(jsonl), mode(md.parent)) == (0o600, 0o600, 0o700)
    assert mode(md2) == 0o600 and mode(named) == 0o755  # a folder the user named is left as it is
    assert wide(tmp_path / "sessions") == []


def test_the_helper_refuses_a_link_and_a_folder_of_another_user(tmp_path: Path, umask_022) -> None:
    target = tmp_path / "elsewhere.txt"
    target.write_text("not ours to write\n")
    link = tmp_path / "own" / "log.txt"
    link.parent.mkdir()
    link.symlink_to(target)
    with pytest.raises(OSError):
        open_private(link, "a")
    assert target.read_text() == "not ours to write\n"
    assert mode(link.parent) == 0o700  # the folder was still made private
    if os.getuid() != 0 and os.path.exists("/"):
        with pytest.raises(PermissionError):
            private_dir("/")  # root's folder: never chmodded
