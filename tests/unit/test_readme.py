"""The README: its two commands stay as they are, and it says how to run agent-tui in your own project."""

from __future__ import annotations

from pathlib import Path

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")


def test_the_two_commands_are_unchanged() -> None:
    assert "python3 -m venv .venv && .venv/bin/pip install . && .venv/bin/agent-tui\n" in README
    assert 'python3 -m venv .venv && .venv/bin/pip install -e ".[test]" && .venv/bin/python -m pytest\n' in README


def test_it_says_how_to_run_agent_tui_in_your_own_project() -> None:
    start = README.index("### Running it in your own project")
    section = README[start : README.index("## Test (one command)")]
    for words in ("/.venv/bin/agent-tui", "source ", "/.venv/bin/activate", "pipx install .", "uv tool install ."):
        assert words in section, words
