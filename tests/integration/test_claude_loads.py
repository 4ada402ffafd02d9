"""The `claude_loads` fixture through `-p --output-format stream-json --verbose`: what loads, as Claude Code loads it.

The expected values are what Claude Code 2.1.332 loaded from the same folder against the same fake API
answer (tests/differential/test_loads_differential.py runs both and compares them).
"""

from __future__ import annotations

from pathlib import Path

from tests.differential.loads_harness import run_folder
from tests.fixtures import CLAUDE_LOADS

USER_FILES = {
    "rules/mine.md": "Mine: answer briefly.\n",
    "rules/typescript.md": '---\npaths: ["**/*.ts"]\n---\nTypeScript rule.\n',
}


def test_the_fixture_loads_what_claude_code_loads(tmp_path: Path) -> None:
    import sys

    loaded = run_folder(
        "agent-tui", sys.executable, CLAUDE_LOADS, tmp_path, ["app.py", "tests/app_check.py", "app.py"], USER_FILES
    )
    assert loaded.commands == {"new-project", "no-description", "optimize", "summarise"}, loaded.stderr
    assert loaded.agents == {"lister"}
    assert loaded.skills == {"summarise"}  # a skill without a description is a command only
    assert loaded.memory == ["~/.claude/rules/mine.md", "./CLAUDE.md", "./.claude/rules/style.md"]
    assert loaded.rules_after == [["./.claude/rules/app.md"], ["./.claude/rules/python/tests.md"], []]
    assert "was skipped" not in loaded.stderr and "not loaded" not in loaded.stderr
