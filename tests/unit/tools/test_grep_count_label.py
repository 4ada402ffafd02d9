"""A count-mode Grep is told apart from a content search of the same pattern in the tool panel."""

from __future__ import annotations

from tui.tools.base import ToolContext
from tui.tools.grep import GrepTool


def test_count_mode_says_so_in_the_label(ctx: ToolContext) -> None:
    grep = GrepTool()
    assert grep.label({"pattern": "TODO", "output_mode": "count"}, ctx) == "Grep TODO (count)"
    assert grep.label({"pattern": "TODO", "output_mode": "content"}, ctx) == "Grep TODO"
