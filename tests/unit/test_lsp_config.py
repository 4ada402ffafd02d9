"""Language servers' configuration: `[lsp]` settings, plugins' `.lsp.json`, PATH order, and the report's form."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tui.config.settings import load_settings, trust_folder, user_config_dir
from tui.lsp.diagnostics import Diagnostic, report
from tui.lsp.servers import choose, found_on_path, project_root, spec_from_table
from tui.plugins.components import read_parts
from tui.plugins.manifest import read_manifest


@pytest.fixture
def proj(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    path = tmp_path / "proj"
    (path / ".agent-tui").mkdir(parents=True)
    return path


def test_lsp_settings_are_checked_key_by_key(proj: Path) -> None:
    user = user_config_dir() / "settings.toml"
    user.parent.mkdir(parents=True)
    user.write_text(
        "[lsp]\ndiagnostics_timeout = 1.5\nwarnings = true\nmax_diagnostics = 0\ncolour = 1\n"
        '[lsp.servers.mine]\ncommand = "my-ls"\nextensions = [".py"]\nflavour = "x"\n'
        '[lsp.servers.empty]\ncommand = "x"\n'
    )
    loaded = load_settings(proj)
    lsp = loaded.settings.lsp
    assert lsp.switches == {"diagnostics_timeout": 1.5, "warnings": True}
    assert list(lsp.servers) == ["mine"] and lsp.servers["mine"]["command"] == "my-ls"
    problems = "\n".join(loaded.problems)
    for key in ("`lsp.max_diagnostics`", "`lsp.colour`", "`lsp.servers.mine.flavour`", "`lsp.servers.empty`"):
        assert key in problems, (key, problems)


def test_a_folders_language_server_waits_for_trust(proj: Path) -> None:
    (proj / ".agent-tui" / "settings.toml").write_text(
        '[lsp.servers.evil]\ncommand = "./run-me"\nextensions = [".py"]\n'
    )
    loaded = load_settings(proj)
    assert loaded.settings.lsp.servers == {}
    assert ("lsp.servers.evil", "./run-me", proj / ".agent-tui" / "settings.toml") in loaded.withheld
    from tui.trust.inventory import folder_inventory

    assert [i.text for i in folder_inventory(proj, loaded).of("settings_commands")] == ["lsp.servers.evil: ./run-me"]
    trust_folder(proj)
    assert "evil" in load_settings(proj).settings.lsp.servers


def test_a_plugins_lsp_json_is_read_in_claude_codes_format(tmp_path: Path) -> None:
    root = tmp_path / "plug"
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "golang"}))
    (root / ".lsp.json").write_text(
        json.dumps(
            {
                "go": {
                    "command": "${CLAUDE_PLUGIN_ROOT}/bin/gopls",
                    "args": ["serve"],
                    "extensionToLanguage": {".go": "go"},
                    "env": {"GOFLAGS": "-mod=mod"},
                },
                "broken": {"args": []},
            }
        )
    )
    parts = read_parts("golang@m", root, read_manifest(root), gated=False)
    [(name, table, where)] = parts.lsp_servers
    spec = spec_from_table(name, table, where)
    assert spec.command == f"{root}/bin/gopls" and spec.args == ("serve",) and spec.serves("main.go")
    assert spec.env == {"GOFLAGS": "-mod=mod"} and name == "golang:go"
    assert any("`broken` needs a `command`" in p for p in parts.problems)


def test_path_servers_come_in_the_documented_order_one_per_language(tmp_path: Path) -> None:
    for command in ("pylsp", "ty", "gopls"):
        exe = tmp_path / command
        exe.write_text("#!/bin/sh\n")
        exe.chmod(0o755)
    found = [s.name for s in found_on_path(str(tmp_path))]
    assert found == ["ty", "gopls"]  # ty before pylsp for Python; one server per language
    configured = [spec_from_table("mine", {"command": "x", "extensions": [".go"]}, "settings")]
    assert [s.name for s in choose(configured, str(tmp_path))] == ["mine", "ty"]


def test_the_root_is_the_nearest_marker_at_or_under_the_project(tmp_path: Path) -> None:
    (tmp_path / "svc" / "src").mkdir(parents=True)
    (tmp_path / "svc" / "pyproject.toml").write_text("")
    spec = spec_from_table("p", {"command": "x", "extensions": [".py"], "root_markers": ["pyproject.toml"]}, "s")
    assert project_root(str(tmp_path / "svc" / "src" / "a.py"), spec, str(tmp_path)) == str(tmp_path / "svc")
    assert project_root(str(tmp_path / "b.py"), spec, str(tmp_path)) == str(tmp_path)


def test_the_report_marks_what_the_edit_introduced_and_stays_within_its_caps() -> None:
    old = [Diagnostic(9, 1, "error", "'os' imported but unused", "pyflakes")]
    new = [
        Diagnostic(2, 27, "error", "undefined name 'x'", "pyflakes"),
        Diagnostic(10, 1, "error", old[0].message, "pyflakes"),
    ]
    text = report("calc.py", new, old, server="pylsp")
    assert text.splitlines() == [
        '<diagnostics server="pylsp">',
        "Introduced by this edit (1):",
        "calc.py:2:27 error [pyflakes] undefined name 'x'",
        "Already there before it (1):",
        "calc.py:10:1 error [pyflakes] 'os' imported but unused",
        "</diagnostics>",
    ]
    assert report("calc.py", [Diagnostic(1, 1, "warning", "w")], None) == ""  # warnings only by setting
    many = [Diagnostic(n, 1, "error", f"problem {n}") for n in range(1, 60)]
    capped = report("a.py", many, None, max_items=5)
    assert capped.count(" error ") == 5 and "… 54 more not shown" in capped
