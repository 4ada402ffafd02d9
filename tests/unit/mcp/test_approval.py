"""Which project servers the app starts, asks about or leaves: Claude Code's keys in either tool's files."""

from __future__ import annotations

import json
from pathlib import Path

from tui.config.paths import user_settings_file
from tui.mcp.approval import only_enabled, project_servers, record_choices
from tui.mcp.sources import load_mcp_servers


def _folder(tmp_path: Path) -> Path:
    project = tmp_path / "proj"
    project.mkdir()
    servers = {name: {"command": "echo", "args": [name]} for name in ("claude_ok", "ours_ok", "refused", "new", "mine")}
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.local.json").write_text(json.dumps({"enabledMcpjsonServers": ["claude_ok"]}))
    user = user_settings_file()
    user.parent.mkdir(parents=True)
    user.write_text(f'[projects."{project}".mcp_servers.mine]\ncommand = "echo"\nargs = ["local wins"]\n')
    return project


def test_claude_codes_and_our_answers_both_count_and_shadowed_servers_are_not_asked(tmp_path: Path) -> None:
    project = _folder(tmp_path)
    record_choices(project, ["ours_ok"], ["refused"])
    new, enabled = project_servers(project)
    assert [s.name for s in new] == ["new"]  # "mine" is the user's own local server: nothing to ask
    assert [s.name for s in enabled] == ["claude_ok", "ours_ok"]
    started = load_mcp_servers(project, trusted=True, approve=only_enabled(project, True))
    assert sorted(s.name for s in started.servers) == ["claude_ok", "mine", "ours_ok"]
    assert started.held_back == {"refused": "disabled", "new": "not approved", "mine": "not approved"}
    untrusted = load_mcp_servers(project, trusted=False, approve=only_enabled(project, False))
    assert [s.name for s in untrusted.servers] == ["mine"]  # the folder's own servers never start untrusted
