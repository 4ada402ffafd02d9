"""A tool block is cheap to build and to retitle (eight subagents mount and retitle theirs within a frame's budget),
and looks the same as the Collapsible it is."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from rich.style import Style
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Collapsible
from textual.widgets._collapsible import CollapsibleTitle

from tui.text.sanitize import one_line
from tui.ui.app import AgentApp
from tui.ui.widgets.blocks import TOOL_STATE_STYLE, TOOL_STATE_WORD, ToolCallBlock, format_seconds, tool_title
from tui.ui.widgets.conversation_model import ToolRecord

from .conftest import SIZE, wait_until


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


def _agent(i: int) -> ToolRecord:
    return ToolRecord(
        f"t{i}", "Agent", label=f"Agent general-purpose: job {i}", state="running", agent_path=f"main/gp-{i}"
    )


def _cells(app: AgentApp, widget: Widget) -> list[list[tuple[str, Any]]]:
    """The cells the screen shows over `widget`'s region: each character and its look."""
    region = widget.region
    strips = app.screen._compositor.render_strips()
    rows = []
    for y in range(region.y, region.bottom):
        strip = strips[y].crop(region.x, region.right)
        rows.append([(ch, _look(seg.style)) for seg in strip for ch in seg.text])
    return rows


def _look(style: Style | None) -> Any:
    return None if style is None else (style.color, style.bgcolor, style.bold, style.dim, style.italic)


async def test_a_folded_tool_block_mounts_as_one_widget_that_looks_like_its_title(fake_session: Any) -> None:
    app = AgentApp(fake_session.options, session=fake_session)
    async with app.run_test(size=SIZE) as pilot:
        light, full = ToolCallBlock(_agent(1)), ToolCallBlock(_agent(1))
        await app.conversation.mount_all([light, full])
        await full._open()  # the Collapsible it stands for: the title widget, still folded
        await pilot.pause()
        assert list(light.walk_children(with_self=True)) == [light]  # one widget (was two: block and title)
        assert list(full.walk_children()) == [full._title] and full.collapsed
        assert light.region.size == full.region.size
        assert _cells(app, light) == _cells(app, full)  # the same line, in the same colours
        app.theme = next(name for name, theme in app.available_themes.items() if not theme.dark)
        await pilot.pause()
        assert _cells(app, light) == _cells(app, full)
        app.ansi_color = True  # the terminal's own colours: Collapsible:ansi restyles the block, the title alike
        await pilot.pause()
        assert light.has_pseudo_class("ansi")
        assert _cells(app, light) == _cells(app, full)
        # a long title on a narrow screen: an Agent's cut with an ellipsis, another call's wrapped, as the title's
        other = ToolRecord("r1", "Read", label="Read " + "a/" * 80 + "b.py", state="done", duration_ms=1200)
        other.started_at, other.finished_at = 1.0, 2.2
        light_read, full_read = ToolCallBlock(other), ToolCallBlock(other)
        await app.conversation.mount_all([light_read, full_read])
        await full_read._open()
        await pilot.pause()
        assert light_read.region.height == full_read.region.height > 1
        assert _cells(app, light_read) == _cells(app, full_read)


async def test_a_light_tool_block_keeps_the_titles_focus_keys_mouse(fake_session: Any) -> None:
    app = AgentApp(fake_session.options, session=fake_session)
    async with app.run_test(size=SIZE) as pilot:
        block, clicked, hovered = (ToolCallBlock(_agent(i)) for i in range(3))
        await app.conversation.mount_all([block, clicked, hovered])
        await pilot.pause()
        assert all(b in app.screen.focus_chain for b in (block, clicked, hovered))  # reached by Tab, as titles
        block.focus()
        await wait_until(pilot, lambda: app.focused is block._title)  # the title takes the focus
        assert block not in app.screen.focus_chain and block._title in app.screen.focus_chain
        await pilot.press("enter")  # the title's key
        await wait_until(pilot, lambda: not block.collapsed and block._result is not None)
        await pilot.press("enter")
        await wait_until(pilot, lambda: block.collapsed)
        await pilot.click(clicked)  # a click on its title line unfolds it
        await wait_until(pilot, lambda: not clicked.collapsed and clicked._title.is_mounted)
        await pilot.pause()
        await pilot.click(clicked._title)  # and a click on the title folds it again
        await wait_until(pilot, lambda: clicked.collapsed)
        await pilot.hover(hovered)  # the mouse over it: the title widget, which shows the hover
        await wait_until(pilot, lambda: hovered._title.is_mounted and hovered._title.mouse_hover)
        assert hovered.collapsed and hovered.tool.unfolded is False
