"""Bash: exit status 1 of diff/cmp/grep/test is an answer ("different", "not found"), not an error."""

from __future__ import annotations

from pathlib import Path

import pytest

from tui.tools.base import ToolContext
from tui.tools.bash import BashTool


@pytest.mark.parametrize(
    "command", ["diff a b", "cmp a b", "grep nothing a", "test -f nothing", "[ -f nothing ]", "cat a | grep nothing"]
)
def test_exit_one_that_answers_is_not_an_error(project: Path, ctx: ToolContext, command: str) -> None:
    (project / "a").write_text("a\n")
    (project / "b").write_text("b\n")
    result = BashTool().run({"command": command}, ctx)
    assert result.meta["exit_code"] == 1 and not result.is_error


@pytest.mark.parametrize(
    "command", ["false", "grep nothing a && true", "diff a", "grep -q x nothing-here", "ls nothing"]
)
def test_other_failures_stay_errors(project: Path, ctx: ToolContext, command: str) -> None:
    (project / "a").write_text("a\n")
    result = BashTool().run({"command": command}, ctx)
    assert result.meta["exit_code"] != 0 and result.is_error
