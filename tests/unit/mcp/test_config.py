"""MCP configuration: every source, Claude Code's precedence, variables, and one sentence per bad entry."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tui.cli.main import options_from_args
from tui.cli.parser import build_parser
from tui.config.paths import local_settings_file, user_settings_file
from tui.config.settings import load_settings
from tui.mcp.config import McpConfigError, parse_server
from tui.mcp.sources import load_mcp_servers


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _mcp_json(project: Path, servers: dict) -> Path:
    return _write(project / ".mcp.json", json.dumps({"mcpServers": servers}))


def test_claude_code_shapes_parse_with_variables() -> None:
    env = {"K": "v", "TOKEN": "t"}
    stdio = parse_server(
        "local",
        {"command": "npx", "args": ["-y", "${K}"], "env": {"K": "${K}"}, "cwd": "/w"},
        source="project",
        source_path="/p/.mcp.json",
        env=env,
    )
    assert (stdio.transport, stdio.command, stdio.args, dict(stdio.env), stdio.cwd) == (
        "stdio",
        "npx",
        ("-y", "v"),
        {"K": "v"},
        "/w",
    )
    remote = parse_server(
        "remote",
        {
            "type": "streamable-http",
            "url": "${API_BASE:-https://api.example.com}/mcp",
            "headers": {"Authorization": "Bearer ${TOKEN}"},
            "timeout": 600000,
        },
        source="user",
        source_path="/u/settings.toml",
        env=env,
    )
    assert (remote.transport, remote.url, dict(remote.headers), remote.timeout) == (
        "http",
        "https://api.example.com/mcp",
        {"Authorization": "Bearer t"},
        600.0,
    )
    assert (
        parse_server(
            "s", {"type": "sse", "url": "http://x/sse", "timeout": 5}, source="cli", source_path="--mcp-config", env={}
        ).timeout
        is None
    )  # < 1000 ms: ignored


@pytest.mark.parametrize(
    ("name", "entry", "words"),
    [
        ("my server", {"command": "x"}, ["'my server'", "no spaces", ".mcp.json"]),
        ("ws", {"type": "ws", "url": "wss://x"}, ["mcpServers.ws.type", "unknown transport 'ws'"]),
        ("u", {"url": "https://x"}, ["mcpServers.u", "no type"]),
        ("v", {"command": "${NOPE}"}, ["mcpServers.v.command", "${NOPE}", "not set"]),
        (
            "h",
            {"type": "http", "url": "https://x", "headers": {"A": "${MISSING_TOKEN}"}},
            ["mcpServers.h.headers.A", "${MISSING_TOKEN}"],
        ),
        ("a", {"command": "x", "args": "not a list"}, ["mcpServers.a.args", "list of strings"]),
    ],
)
def test_bad_entries_are_one_sentence_naming_file_and_key(name: str, entry: dict, words: list[str]) -> None:
    with pytest.raises(McpConfigError) as caught:
        parse_server(name, entry, source="project", source_path="/p/.mcp.json", env={})
    message = str(caught.value)
    assert message.count(". ") == 0 and message.endswith("the server was skipped.")
    for word in words:
        assert word in message


def test_precedence_cli_local_project_user_and_strict(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    _write(user_settings_file(), '[mcp_servers.a]\ncommand = "user-a"\n[mcp_servers.u]\ncommand = "user-u"\n')
    _mcp_json(project, {"a": {"command": "project-a"}, "b": {"command": "project-b"}, "p": {"command": "proj"}})
    _write(local_settings_file(project), '[mcp_servers.b]\ncommand = "local-b"\n[mcp_servers.c]\ncommand = "local-c"\n')
    cli = json.dumps({"mcpServers": {"c": {"command": "cli-c"}}})
    loaded = load_mcp_servers(project, trusted=True, cli_configs=[cli])
    got = {s.name: (s.command, s.source) for s in loaded.servers}
    assert got == {
        "a": ("project-a", "project"),
        "b": ("local-b", "local"),
        "c": ("cli-c", "cli"),
        "p": ("proj", "project"),
        "u": ("user-u", "user"),
    }
    strict = load_mcp_servers(project, trusted=True, cli_configs=[cli], strict=True)
    assert [(s.name, s.command) for s in strict.servers] == [("c", "cli-c")]


def test_untrusted_folder_starts_no_project_server(tmp_path: Path) -> None:
    _mcp_json(tmp_path, {"evil": {"command": "rm"}})
    _write(local_settings_file(tmp_path), '[mcp_servers.evil2]\ncommand = "rm"\n')
    _write(user_settings_file(), '[mcp_servers.mine]\ncommand = "ok"\n')
    loaded = load_mcp_servers(tmp_path, trusted=False)
    assert [s.name for s in loaded.servers] == ["mine"]
    assert loaded.held_back == {"evil": "untrusted folder"}


def test_disabled_project_servers_and_approval_filter(tmp_path: Path) -> None:
    _mcp_json(tmp_path, {"one": {"command": "1"}, "two": {"command": "2"}, "three": {"command": "3"}})
    _write(tmp_path / ".claude" / "settings.local.json", json.dumps({"disabledMcpjsonServers": ["two"]}))
    loaded = load_mcp_servers(tmp_path, trusted=True)
    assert [s.name for s in loaded.servers] == ["one", "three"] and loaded.held_back == {"two": "disabled"}
    only_one = load_mcp_servers(tmp_path, trusted=True, approve=lambda servers: servers[:1])
    assert [s.name for s in only_one.servers] == ["one"]
    assert only_one.held_back == {"two": "disabled", "three": "not approved"}


def test_malformed_mcp_json_names_the_file_and_the_rest_loads(tmp_path: Path) -> None:
    _write(tmp_path / ".mcp.json", '{"mcpServers": {"a": {"command": "x",}}}')
    _write(user_settings_file(), '[mcp_servers.mine]\ncommand = "ok"\n')
    loaded = load_mcp_servers(tmp_path, trusted=True)
    assert [s.name for s in loaded.servers] == ["mine"]
    assert len(loaded.problems) == 1 and str(tmp_path / ".mcp.json") + ":1:" in loaded.problems[0]


def test_cli_flags_fill_options_and_keep_the_prompt(tmp_path: Path) -> None:
    config = _write(tmp_path / "servers.json", json.dumps({"mcpServers": {"t": {"command": "time"}}}))
    inline = '{"mcpServers": {"h": {"type": "http", "url": "http://127.0.0.1:9/mcp"}}}'
    args = build_parser().parse_args(
        [
            "-p",
            "--cwd",
            str(tmp_path),
            "--mcp-config",
            str(config),
            inline,
            "what time is it",
            "--strict-mcp-config",
            "--mcp-config",
            '{"mcpServers": 1}',
        ]
    )
    opts, problems = options_from_args(args)
    assert [s.name for s in opts.mcp_servers] == ["t", "h"]
    assert args.prompt == [] and args.spilled_prompt == ["what time is it"]
    assert problems == [
        "MCP: --mcp-config: mcpServers: expected an object of servers by name; no server was loaded from it."
    ]


def test_settings_loader_accepts_the_mcp_keys(tmp_path: Path) -> None:
    _write(user_settings_file(), '[mcp_servers.a]\ncommand = "x"\n[mcp]\nmax_output_tokens = 100\n')
    _write(local_settings_file(tmp_path), 'disabledMcpjsonServers = ["x"]\n')
    assert load_settings(tmp_path).problems == []
    assert load_mcp_servers(tmp_path, trusted=True).max_output_tokens == 100
