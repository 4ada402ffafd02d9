"""A tool block is cheap to build and to retitle (eight subagents mount and retitle theirs within a frame's budget),
and looks the same as the Collapsible it is."""

from __future__ import annotations

import itertools

import pytest
from textual.content import Content
from textual.widgets import Collapsible
from textual.widgets._collapsible import CollapsibleTitle

from tui.text.sanitize import one_line
from tui.ui.widgets.blocks import TOOL_STATE_STYLE, TOOL_STATE_WORD, ToolCallBlock, format_seconds, tool_title
from tui.ui.widgets.conversation_model import ToolRecord


def markup_title(tool: ToolRecord) -> Content:
    """The title as it was written in markup (the reference: the assembled one must be the same)."""
    glyph, colour = TOOL_STATE_STYLE[tool.state]
    parts = [
        Content.from_markup(f"[{colour}]{glyph}[/] "),
        Content.from_markup("[b]$label[/b]", label=one_line(tool.display_label)),
        Content.from_markup(f"  [{colour}]$state[/]", state=TOOL_STATE_WORD[tool.state]),
    ]
    if tool.is_final:
        parts.append(Content.from_markup("[dim] · $d[/dim]", d=format_seconds(tool.elapsed_s())))
    if tool.diagnostics:
        tone = "$error" if "error" in tool.diagnostics else "$warning" if "warning" in tool.diagnostics else "dim"
        parts.append(Content.from_markup(f"[dim] · [/dim][{tone}]$d[/]", d=one_line(tool.diagnostics)))
    if tool.agent_summary:
        parts.append(Content.from_markup("[dim] · $s[/dim]", s=one_line(tool.agent_summary)))
    return Content.assemble(*parts)


@pytest.mark.parametrize(
    ("state", "label", "diagnostics", "summary"),
    list(
        itertools.product(
            TOOL_STATE_STYLE,
            ["", "Read(a.py)", "Bash([b]not markup[/b] $x)", "two\nlines"],
            ["", "2 errors (pylsp)", "1 warning (ruff)", "no errors (pyright)"],
            ["", "3 tools · 4.1k tokens"],
        )
    ),
)
def test_the_title_is_the_one_the_markup_gave(state: str, label: str, diagnostics: str, summary: str) -> None:
    tool = ToolRecord("t1", "Read", label=label, diagnostics=diagnostics, agent_summary=summary)
    tool.state = state  # type: ignore[assignment]
    tool.started_at, tool.finished_at, tool.duration_ms = 1.0, 2.5, 1500
    built, reference = tool_title(tool), markup_title(tool)
    assert (built.plain, built.spans) == (reference.plain, reference.spans)


@pytest.mark.parametrize("unfolded", [False, True])
def test_a_tool_block_is_built_as_its_collapsible_with_one_title_widget(
    unfolded: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    built = []
    inner = CollapsibleTitle.__init__

    def counting(self: CollapsibleTitle, **kwargs: object) -> None:
        built.append(self)
        inner(self, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(CollapsibleTitle, "__init__", counting)
    tool = ToolRecord("t1", "Agent", label="Agent(job)", agent_path="main/agent-1", unfolded=unfolded)
    block = ToolCallBlock(tool)
    assert built == [block._title]  # Collapsible.__init__ built one more, thrown away at once
    reference = Collapsible(title=tool_title(tool), collapsed=not unfolded)  # type: ignore[arg-type]
    assert (block.collapsed, block.title, block._contents_list) == (
        reference.collapsed,
        reference.title,
        reference._contents_list,
    )
    for name in ("collapsed", "label", "collapsed_symbol", "expanded_symbol", "content"):
        assert getattr(block._title, name) == getattr(reference._title, name), name
    assert block.has_class("-collapsed") is not unfolded and block.has_class("-agent")
