"""Matchers as Claude Code reads them: all, exact names, regular expressions, MCP tools."""

from __future__ import annotations

import pytest

from tui.hooks.matcher import compile_matcher, matches


@pytest.mark.parametrize("matcher", ["", "*", None])
def test_empty_star_and_missing_match_everything(matcher: str | None) -> None:
    assert matches(matcher, "Bash") and matches(matcher, "mcp__git__status")


def test_a_plain_name_is_exact() -> None:
    assert matches("Bash", "Bash")
    assert not matches("Bash", "BashOutput")
    assert not matches("bash", "Bash")  # case-sensitive


@pytest.mark.parametrize("matcher", ["Edit|Write", "Edit, Write", "Edit | Write"])
def test_names_separated_by_bar_or_comma(matcher: str) -> None:
    assert matches(matcher, "Edit") and matches(matcher, "Write")
    assert not matches(matcher, "Read")


def test_anything_else_is_an_unanchored_regex() -> None:
    assert matches("Edit.*", "NotebookEdit")  # unanchored, as Claude Code
    assert matches("^Re", "Read") and not matches("^Re", "PreRead")


def test_mcp_tools_need_a_pattern() -> None:
    assert matches("mcp__git__.*", "mcp__git__status")
    assert not matches("mcp__git", "mcp__git__status")


def test_an_invalid_regex_matches_nothing_and_is_reported() -> None:
    assert not matches("Bash(", "Bash(")
    with pytest.raises(ValueError, match="not a valid regular expression"):
        compile_matcher("Bash(")
