"""The built-in tool set, in the order the model sees it."""

from __future__ import annotations

from collections.abc import Iterable

from tui.tools.ask_user import AskUserQuestionTool, ExitPlanModeTool
from tui.tools.base import Tool
from tui.tools.bash import BashTool
from tui.tools.edit import EditTool
from tui.tools.glob_tool import GlobTool
from tui.tools.grep import GrepTool
from tui.tools.read import ReadTool
from tui.tools.task_tools import TaskOutputTool, TaskStopTool
from tui.tools.todo import TodoWriteTool
from tui.tools.web_fetch import WebFetchTool
from tui.tools.web_search import WebSearchTool
from tui.tools.write import WriteTool


def default_tools() -> list[Tool]:
    """Fresh instances of every built-in tool, in the order the model sees them."""
    return [
        ReadTool(),
        WriteTool(),
        EditTool(),
        BashTool(),
        GlobTool(),
        GrepTool(),
        TodoWriteTool(),
        TaskOutputTool(),
        TaskStopTool(),
        WebFetchTool(),
        WebSearchTool(),
        AskUserQuestionTool(),
        ExitPlanModeTool(),
    ]


def tools_by_name(tools: Iterable[Tool]) -> dict[str, Tool]:
    """Tools keyed by their API name."""
    return {tool.name: tool for tool in tools}
