"""`agent-tui mcp add/add-json/get/list/remove/reset-project-choices` on real files and a real server."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tui.config.paths import local_settings_file, user_settings_file
from tui.mcp.cli import main

SERVER = """
from mcp.server.mcpserver import MCPServer
app = MCPServer("tiny")

@app.tool()
def echo(text: str) -> str:
    \"\"\"Echo the text.\"\"\"
    return text

app.run()
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "proj"
    folder.mkdir()
    return folder


@pytest.fixture
def server_script(tmp_path: Path) -> Path:
    script = tmp_path / "tiny_server.py"
    script.write_text(SERVER)
    return script


def run(project: Path, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv), project)
    out, err = capsys.readouterr()
    return code, out, err


def test_add_local_keeps_comments_and_lists_connected_and_failed(
    project: Path, server_script: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    user = user_settings_file()
    user.parent.mkdir(parents=True)
    user.write_text('# my settings\nmodel = "claude-x"  # the one I like\n')
    code, out, _ = run(project, capsys, "add", "tiny", "-e", "K=v", "--", sys.executable, str(server_script))
    assert code == 0
    assert f"Added stdio MCP server tiny with command: {sys.executable} {server_script} to local config" in out
    assert f"File modified: {user} [project: {project}]" in out
    assert run(project, capsys, "add", "broken", "--", "/nonexistent/server")[0] == 0
    text = user.read_text()
    assert text.startswith('# my settings\nmodel = "claude-x"  # the one I like\n')
    data = tomllib.loads(text)
    assert data["projects"][str(project)]["mcp_servers"]["tiny"] == {
        "type": "stdio",
        "command": sys.executable,
        "args": [str(server_script)],
        "env": {"K": "v"},
    }

    code, out, _ = run(project, capsys, "list")
    assert code == 0
    assert out.startswith("Checking MCP server health…\n\n")
    assert f"tiny: {sys.executable} {server_script} - ✔ Connected" in out
    # as `claude mcp list` 2.1.332: the space of the empty arguments kept, and why it failed after a dash
    assert "broken: /nonexistent/server  - ✘ Failed to connect — ENOENT: no such file or directory, posix_spawn" in out

    code, out, _ = run(project, capsys, "get", "tiny")
    assert code == 0
    assert "  Scope: Local config (private to you in this project)\n  Status: ✔ Connected\n  Type: stdio\n" in out
    assert "  Environment:\n    K=v\n" in out
    assert "To remove this server, run: agent-tui mcp remove tiny -s local" in out

    code, out, _ = run(project, capsys, "remove", "tiny")
    assert (code, out.splitlines()[0]) == (0, 'Removed MCP server "tiny" from local config')
    assert "tiny" not in tomllib.loads(user.read_text())["projects"][str(project)]["mcp_servers"]
    assert user.read_text().startswith("# my settings\n")


def test_no_servers_and_unknown_names(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(project, capsys, "list") == (
        0,
        "No MCP servers configured. Use `agent-tui mcp add` to add a server.\n",
        "",
    )
    assert run(project, capsys, "add", "a", "--", "echo")[0] == 0
    code, out, err = run(project, capsys, "get", "nope")
    assert (code, out, err) == (1, "", 'No MCP server named "nope". Configured servers: a\n')
    assert run(project, capsys, "remove", "nope")[2] == 'No MCP server named "nope". Configured servers: a\n'
    assert run(project, capsys, "remove", "a", "-s", "user") == (1, "", 'No MCP server named "a" in user scope\n')


def test_project_scope_writes_mcp_json_keeping_other_keys(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    mcp_json = project / ".mcp.json"
    mcp_json.write_text(json.dumps({"note": "team servers", "mcpServers": {"old": {"command": "x"}}}))
    code, out, _ = run(
        project,
        capsys,
        "add",
        "-s",
        "project",
        "-t",
        "http",
        "web",
        "http://127.0.0.1:9/mcp",
        "--header",
        "Authorization: Bearer ${TOKEN}",
    )
    assert code == 0
    assert out.splitlines()[:2] == [
        "Added HTTP MCP server web with URL: http://127.0.0.1:9/mcp to project config",
        "Headers: {",
    ]
    assert '"Authorization": "[REDACTED]"' in out
    data = json.loads(mcp_json.read_text())
    assert data["note"] == "team servers" and data["mcpServers"]["old"] == {"command": "x"}
    assert data["mcpServers"]["web"] == {
        "type": "http",
        "url": "http://127.0.0.1:9/mcp",
        "headers": {"Authorization": "Bearer ${TOKEN}"},
    }  # kept unexpanded
    code, out, _ = run(project, capsys, "add-json", "-s", "project", "js", '{"command": "cat", "args": ["-u"]}')
    assert (code, out.splitlines()[0]) == (0, "Added stdio MCP server js to project config")
    code, _, err = run(project, capsys, "get", "web")
    assert code == 1
    assert err == (
        f"agent-tui: {mcp_json}: mcpServers.web.headers.Authorization: the variable ${{TOKEN}} is not set and has "
        "no default (write ${TOKEN:-value} for one); the server was skipped.\n"
    )
    monkeypatch.setenv("TOKEN", "t")
    code, out, _ = run(project, capsys, "get", "web")  # an untrusted folder: the server does not start
    assert "  Scope: Project config (shared via .mcp.json)\n  Status: ⏸ Folder not trusted" in out
    assert run(project, capsys, "remove", "old")[0] == 0
    assert set(json.loads(mcp_json.read_text())["mcpServers"]) == {"web", "js"}


def test_same_name_in_two_scopes_needs_a_scope_to_remove(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(project, capsys, "add", "-s", "user", "dup", "--", "echo", "user")[0] == 0
    assert run(project, capsys, "add", "dup", "--", "echo", "local")[0] == 0
    assert tomllib.loads(user_settings_file().read_text())["mcp_servers"]["dup"]["args"] == ["user"]
    code, out, err = run(project, capsys, "remove", "dup")
    assert code == 1 and out == ""
    assert err.startswith('MCP server "dup" exists in multiple scopes:\n')
    assert "  agent-tui mcp remove dup -s local\n  agent-tui mcp remove dup -s user\n" in err
    code, out, _ = run(project, capsys, "remove", "dup", "-s", "user")
    assert (code, out.splitlines()[0]) == (0, "Removed MCP server dup from user config")  # no quotes with -s
    assert "dup" not in tomllib.loads(user_settings_file().read_text()).get("mcp_servers", {})


@pytest.mark.parametrize(
    ("argv", "sentence"),
    [
        (
            ["add", "x", "-e", "NOEQ", "--", "echo"],
            "Invalid environment variable format: NOEQ, environment variables "
            "should be added as: -e KEY1=value1 -e KEY2=value2",
        ),
        (
            ["add", "-t", "http", "h", "http://x", "-H", "nocolon"],
            'Invalid header format: "nocolon". Expected format: "Header-Name: value"',
        ),
        (
            ["add", "-t", "ws", "w", "ws://x"],
            "Invalid transport type: ws. Must be one of: stdio, sse, http (or streamable-http)",
        ),
        (["add", "-s", "team", "y", "--", "echo"], "Invalid scope: team. Must be one of: local, project, user"),
        (["add", "x"], "error: missing required argument 'commandOrUrl'"),
        (
            ["add", "-t", "http", "h", "ftp://x"],
            "mcp_servers.h.url: 'ftp://x' is not an http(s) URL; nothing was written.",
        ),
        (
            ["add", "bad name", "--", "echo"],
            "the server name 'bad name' may use only letters, digits, '_' and '-' (no spaces); nothing was written.",
        ),
        (["add-json", "j", '{"type": "stdio"'], "Invalid configuration: the JSON for j does not parse"),
        (["add-json", "j", '{"type": "stdio"}'], "mcp_servers.j: a stdio server needs a command; nothing was written."),
        (
            ["add-json", "j", '{"type": "carrier-pigeon", "url": "http://x"}'],
            "mcp_servers.j.type: unknown transport 'carrier-pigeon' (expected stdio, http, sse or sdk)",
        ),
    ],
)
def test_bad_input_is_one_sentence_and_writes_nothing(
    project: Path, capsys: pytest.CaptureFixture[str], argv: list[str], sentence: str
) -> None:
    code, out, err = run(project, capsys, *argv)
    assert (code, out) == (1, "")
    assert sentence in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not user_settings_file().exists()


def test_broken_files_are_named_and_left_alone(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / ".mcp.json").write_text('{"mcpServers": {"a": }')
    code, _, err = run(project, capsys, "add", "-s", "project", "b", "--", "echo")
    assert code == 1
    assert err.startswith(
        f"agent-tui: {project / '.mcp.json'} cannot be updated because it does not parse "
        f"({project / '.mcp.json'}:1:22: "
    )
    assert (project / ".mcp.json").read_text() == '{"mcpServers": {"a": }'
    user = user_settings_file()
    user.parent.mkdir(parents=True)
    user.write_text("# mine\nmcp_servers = 3\n")
    code, _, err = run(project, capsys, "add", "-s", "user", "b", "--", "echo")
    assert code == 1
    assert (
        err == f"agent-tui: {user}: key `mcp_servers` is not a table of servers; fix it first; nothing was changed.\n"
    )
    assert user.read_text() == "# mine\nmcp_servers = 3\n"


def test_reset_project_choices_keeps_the_rest(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tui.mcp.approval import record_choices

    local = local_settings_file(project)
    local.parent.mkdir(parents=True)
    local.write_text('# local\nmodel = "m"\n')
    record_choices(project, ["a"], ["b"])
    record_choices(project, ["b"], [])  # a later answer replaces an earlier one
    data = tomllib.loads(local.read_text())
    assert (data["enabledMcpjsonServers"], data["disabledMcpjsonServers"]) == (["a", "b"], [])
    code, out, _ = run(project, capsys, "reset-project-choices")
    assert code == 0 and out.startswith("Project-scoped (.mcp.json) server approvals and rejections")
    assert local.read_text().startswith('# local\nmodel = "m"\n')
    assert "enabledMcpjsonServers" not in tomllib.loads(local.read_text())


def test_agent_tui_mcp_dispatches_from_the_main_cli(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "tui.cli.main", "mcp", "list"], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert (done.returncode, done.stdout) == (
        0,
        "No MCP servers configured. Use `agent-tui mcp add` to add a server.\n",
    )


def test_choices_and_servers_tables_of_the_wrong_type_are_named(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tui.config.rule_files import SettingsWriteError
    from tui.mcp.approval import record_choices

    local = local_settings_file(project)
    local.parent.mkdir(parents=True)
    local.write_text('enabledMcpjsonServers = "all"\n')
    with pytest.raises(SettingsWriteError) as caught:
        record_choices(project, ["a"], [])
    assert str(caught.value) == (
        f"{local}: key `enabledMcpjsonServers` is not a list of server names; fix it first; nothing was changed."
    )
    assert local.read_text() == 'enabledMcpjsonServers = "all"\n'
    (project / ".mcp.json").write_text('{"mcpServers": []}')
    code, _, err = run(project, capsys, "add-json", "-s", "project", "a", '{"command": "x"}')
    assert code == 1 and err == (
        f"agent-tui: {project / '.mcp.json'}: key `mcpServers` is not a table of servers; "
        "fix it first; nothing was changed.\n"
    )
