"""MCP settings that cannot work, as a user meets them: one sentence naming the setting or the file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tui.mcp.cli import main as mcp_main


def _print_mode(project: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "XDG_"))}
    env.update(XDG_CONFIG_HOME=str(home / "config"), XDG_DATA_HOME=str(home / "data"))
    return subprocess.run(
        [sys.executable, "-m", "tui.cli.main", "-p", "hi", "--offline", "--cwd", str(project), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=90,
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "proj"
    folder.mkdir()
    return folder


def test_a_server_whose_cwd_is_missing_says_so_not_command_not_found(project, tmp_path, capsys) -> None:
    entry = {"command": sys.executable, "args": ["-c", "pass"], "cwd": str(tmp_path / "gone")}
    proc = _print_mode(project, tmp_path, "--mcp-config", json.dumps({"mcpServers": {"tools": entry}}))
    line = next(line for line in proc.stderr.splitlines() if "MCP server tools" in line)
    assert line.startswith(
        f"agent-tui: MCP server tools failed: its cwd {tmp_path / 'gone'} does not exist "
        "(set `cwd` in --mcp-config to an existing folder)"
    )
    assert "not found" not in proc.stderr and "Traceback" not in proc.stderr

    assert mcp_main(["add-json", "tools", json.dumps(entry)], project) == 0  # `mcp list` probes with the same check
    assert mcp_main(["list"], project) == 0
    assert f"✘ Failed to connect — its cwd {tmp_path / 'gone'} does not exist" in capsys.readouterr().out


def test_mcp_add_shows_escape_sequences_as_text_and_masks_a_password(project, capsys) -> None:
    assert mcp_main(["add", "show", "--", "printf", "\x1b]0;pwned\x07", "\x1b[2J"], project) == 0
    assert mcp_main(["add", "--transport", "http", "web", "https://me:hunter2@mcp.example/x"], project) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out
    assert "with command: printf ␛]0;pwned␇ ␛[2J to local config" in out
    assert "with URL: https://***@mcp.example/x to local config" in out and "hunter2" not in out


def test_a_server_named_twice_in_mcp_json_says_which_one_is_used(project, tmp_path, capsys) -> None:
    from tui.config.settings import trust_folder

    trust_folder(project)
    (project / ".mcp.json").write_text(
        '{"mcpServers": {"db": {"command": "first-db"}, "db": {"command": "second-db"}}}'
    )
    expected = (
        f"{project / '.mcp.json'}: the MCP server 'db' is defined more than once in \"mcpServers\"; "
        "the last definition (`second-db`) wins."
    )
    assert mcp_main(["list"], project) == 0
    assert f"agent-tui: MCP: {expected}" in capsys.readouterr().err
    proc = _print_mode(project, Path(os.environ["XDG_CONFIG_HOME"]).parent)
    assert expected in proc.stderr
