"""What the loop's events and a saved history look like as ACP `session/update` notifications.

Pure translation, no I/O: tool calls get their ACP kind, a title, the paths they touch and their
result; TodoWrite's list becomes the plan; a resumed history is replayed message by message.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from acp import (
    plan_entry,
    start_tool_call,
    text_block,
    tool_content,
    tool_diff_content,
    update_agent_message_text,
    update_agent_thought_text,
    update_plan,
    update_tool_call,
    update_user_message_text,
)
from acp.schema import ToolCallLocation, ToolCallStatus, ToolKind

#: the ACP kind of each built-in tool (clients pick icons and grouping by it)
KINDS: dict[str, ToolKind] = {
    "Read": "read",
    "Edit": "edit",
    "Write": "edit",
    "NotebookEdit": "edit",
    "Glob": "search",
    "Grep": "search",
    "ToolSearch": "search",
    "Bash": "execute",
    "TaskStop": "execute",
    "TaskOutput": "read",
    "WebFetch": "fetch",
    "WebSearch": "fetch",
    "TodoWrite": "think",
    "Agent": "think",
    "ExitPlanMode": "switch_mode",
    "ListMcpResources": "read",
    "ReadMcpResource": "read",
    "Skill": "read",
}
#: what a tool's own `kind` (read | edit | exec) says when its name is not above
_BY_TOOL_KIND: dict[str, ToolKind] = {"read": "read", "edit": "edit", "exec": "execute"}
#: a tool result longer than this is cut in what the client is shown (the model gets all of it)
MAX_SHOWN = 64_000
#: the ACP stop reason of each way a turn ends normally; the others answer the prompt with an error
STOP_REASONS = {
    "end_turn": "end_turn",
    "stop_sequence": "end_turn",
    "hook_stopped": "end_turn",
    "max_tokens": "max_tokens",
    "model_context_window_exceeded": "max_tokens",
    "budget": "max_tokens",
    "max_turns": "max_turn_requests",
    "refusal": "refusal",
    "hook_blocked": "refusal",
    "interrupted": "cancelled",
}

Resolve = Callable[[str], Path]


def tool_kind(name: str, tool: Any = None) -> ToolKind:
    """The ACP kind of a call to `name` (`tool` is the tool object when the session has it)."""
    if name in KINDS:
        return KINDS[name]
    return _BY_TOOL_KIND.get(getattr(tool, "kind", ""), "other") if tool is not None else "other"


def locations(name: str, tool_input: dict[str, Any], resolve: Resolve) -> list[ToolCallLocation]:
    """The files or folders a call works on, as absolute paths (Read's offset as the line)."""
    value = (
        tool_input.get("file_path")
        or tool_input.get("notebook_path")
        or (tool_input.get("path") if name in ("Glob", "Grep") else None)
    )
    if not isinstance(value, str) or not value or "\x00" in value:
        return []
    try:
        path = resolve(value)
    except (OSError, ValueError):
        return []
    line = tool_input.get("offset") if name == "Read" else None
    return [ToolCallLocation(path=str(path), line=line if isinstance(line, int) and line > 0 else None)]


def shown(text: str) -> str:
    """`text` cut at MAX_SHOWN characters, saying so."""
    if len(text) <= MAX_SHOWN:
        return text
    return text[:MAX_SHOWN] + f"\n… [{len(text) - MAX_SHOWN:,} more characters not shown here]"


def text_content(text: str) -> Any:
    return tool_content(text_block(shown(text)))


def diff_content(path: str, old: str | None, new: str) -> Any:
    return tool_diff_content(path, new, old)


def tool_started(
    tool_use_id: str,
    name: str,
    title: str,
    tool_input: dict[str, Any],
    tool: Any,
    resolve: Resolve,
    status: ToolCallStatus = "pending",
) -> Any:
    """The `tool_call` that announces a call."""
    return start_tool_call(
        tool_use_id,
        title or name,
        kind=tool_kind(name, tool),
        status=status,
        locations=locations(name, tool_input, resolve),
        raw_input=tool_input,
    )


def tool_finished(tool_use_id: str, failed: bool, content: list[Any]) -> Any:
    """The `tool_call_update` that ends a call."""
    return update_tool_call(tool_use_id, status="failed" if failed else "completed", content=content)


def plan(todos: Any) -> Any:
    """TodoWrite's list as the ACP plan (the statuses are the same three words)."""
    entries = [
        plan_entry(str(t.get("content", "")), status=t.get("status", "pending"))
        for t in todos
        if isinstance(t, dict) and t.get("status") in ("pending", "in_progress", "completed")
    ]
    return update_plan(entries)


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            b.get("text", "") if b.get("type") == "text" else f"[{b.get('type')}]"
            for b in content
            if isinstance(b, dict)
        )
    return ""


def history(messages: list[dict[str, Any]], tools: dict[str, Any], resolve: Resolve) -> Iterator[Any]:
    """A saved conversation as the updates a client shows: prompts, answers, thoughts, tool calls, the plan."""
    last_todos = None
    for message in messages:
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
        user = message.get("role") == "user"
        for block in blocks:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "text" and block.get("text"):
                yield update_user_message_text(block["text"]) if user else update_agent_message_text(block["text"])
            elif kind == "thinking" and block.get("thinking") and not user:
                yield update_agent_thought_text(block["thinking"])
            elif kind == "tool_use" and not user:
                name, tool_input = str(block.get("name", "")), block.get("input")
                tool_input = tool_input if isinstance(tool_input, dict) else {}
                if name == "TodoWrite":
                    last_todos = tool_input.get("todos")
                yield tool_started(
                    str(block.get("id", "")), name, name, tool_input, tools.get(name), resolve, status="in_progress"
                )
            elif kind == "tool_result" and user:
                yield tool_finished(
                    str(block.get("tool_use_id", "")),
                    bool(block.get("is_error")),
                    [text_content(_result_text(block.get("content")))],
                )
    if isinstance(last_todos, list):
        yield plan(last_todos)
