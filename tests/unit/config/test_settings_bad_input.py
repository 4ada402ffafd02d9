"""Settings files that are hostile or broken: one problem naming the file, never an exception."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tui.config.rule_files import SettingsWriteError, add_rule_to_file
from tui.config.settings import load_settings, user_config_dir

DEEP_TOML = "a = " + "[" * 10_000 + "]" * 10_000 + "\n"
DEEP_JSON = '{"a":' * 10_000 + "1" + "}" * 10_000


@pytest.fixture
def proj(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    path = tmp_path / "proj"
    (path / ".agent-tui").mkdir(parents=True)
    (path / ".claude").mkdir()
    return path


@pytest.mark.parametrize(
    "where, text",
    [
        ("user", DEEP_TOML),
        (".agent-tui/settings.toml", DEEP_TOML),
        (".agent-tui/settings.local.toml", "[[[[" * 2500 + "\n"),
        (".claude/settings.json", DEEP_JSON),
        (".claude/settings.local.json", "[" * 10_000 + "]" * 10_000),
    ],
    ids=["user-toml", "project-toml", "local-toml-tables", "claude-json", "claude-local-json-array"],
)
def test_deeply_nested_settings_are_one_problem_naming_the_file(proj: Path, where: str, text: str) -> None:
    path = user_config_dir() / "settings.toml" if where == "user" else proj / where
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    (proj / ".agent-tui/settings.toml").write_text('model = "kept"\n') if where != ".agent-tui/settings.toml" else None
    loaded = load_settings(proj)
    assert len(loaded.problems) == 1 and loaded.problems[0].startswith(str(path)), loaded.problems
    assert "skipped" in loaded.problems[0]
    if where != ".agent-tui/settings.toml":
        assert loaded.settings.model == "kept"  # the other layers still count


def test_writing_a_rule_into_a_deeply_nested_file_is_a_sentence(proj: Path) -> None:
    path = proj / ".claude/settings.json"
    path.write_text(DEEP_JSON)
    with pytest.raises(SettingsWriteError, match="nested too deeply"):
        add_rule_to_file(path, "allow", "Read")
    assert path.read_text() == DEEP_JSON


@pytest.mark.parametrize("kind", ["folder", "fifo", "unreadable"])
def test_a_settings_toml_that_cannot_be_read_is_reported_and_the_rest_loads(proj: Path, kind: str) -> None:
    path = proj / ".agent-tui/settings.toml"
    if kind == "folder":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    else:
        path.write_text('model = "secret"\n')
        path.chmod(0)
        if os.access(path, os.R_OK):
            pytest.skip("running as a user who can read any file")
    (proj / ".agent-tui/settings.local.toml").write_text('model = "local"\n')
    loaded = load_settings(proj)  # a FIFO must not block here
    assert len(loaded.problems) == 1 and loaded.problems[0].startswith(str(path)), loaded.problems
    expected = {"folder": "a directory", "fifo": "a FIFO", "unreadable": "cannot be read"}[kind]
    assert expected in loaded.problems[0] and "skipped" in loaded.problems[0]
    assert loaded.settings.model == "local"


@pytest.mark.parametrize("value", ["0", "0.0", "-5", "inf", "-inf", "nan"])
def test_stream_idle_timeout_must_be_positive_and_finite(proj: Path, value: str) -> None:
    path = proj / ".agent-tui/settings.toml"
    path.write_text(f"stream_idle_timeout = {value}\n")
    loaded = load_settings(proj)
    assert loaded.settings.stream_idle_timeout == 90.0
    assert len(loaded.problems) == 1, loaded.problems
    assert loaded.problems[0].startswith(f"{path}:1: key `stream_idle_timeout`: expected a number of seconds above 0")


def test_stream_idle_timeout_on_the_command_line_is_checked_the_same_way(proj: Path) -> None:
    loaded = load_settings(proj, {"stream_idle_timeout": float("inf")})
    assert loaded.settings.stream_idle_timeout == 90.0 and "seconds above 0" in loaded.problems[0]
    assert load_settings(proj, {"stream_idle_timeout": 2.5}).settings.stream_idle_timeout == 2.5


def test_print_mode_starts_with_a_nested_settings_file_and_a_fifo(proj: Path, tmp_path: Path) -> None:
    """`agent-tui -p` as a user runs it: both problems on stderr, one line each, and the run goes on."""
    (proj / ".claude/settings.json").write_text(DEEP_JSON)
    os.mkfifo(proj / ".agent-tui/settings.toml")
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env.update(XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_DATA_HOME=str(tmp_path / "data"))
    proc = subprocess.run(
        [sys.executable, "-m", "tui.cli.main", "-p", "--offline", "list the files", "--cwd", str(proj)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr and "RecursionError" not in proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.startswith("agent-tui: settings: ")]
    assert len(lines) == 2, proc.stderr
    assert any(f"{proj / '.claude/settings.json'} is nested too deeply" in line for line in lines)
    assert any(f"{proj / '.agent-tui/settings.toml'} is a FIFO" in line for line in lines)
