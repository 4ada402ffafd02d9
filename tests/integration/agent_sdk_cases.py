"""The Claude Agent SDK cases of tests/integration/test_agent_sdk.py, run by the SDK's own code.

Run as a script in a Python that has the newest `claude-agent-sdk` (the test installs it in a temp
folder): `python agent_sdk_cases.py CONFIG_JSON`. Each case uses `query()` or `ClaudeSDKClient` with
`cli_path` pointing at agent-tui and prints what the SDK saw; the test asserts on it, on the requests
the fake Messages API received and on the files on disk. Not a test module itself (no `test_` prefix).
"""

from __future__ import annotations

import json
import sys
import time
import traceback
from pathlib import Path
from typing import Any

import anyio
from claude_agent_sdk import (
    AssistantMessage,
    ClaudeAgentOptions,
    ClaudeSDKClient,
    HookMatcher,
    PermissionResultAllow,
    PermissionResultDeny,
    ResultMessage,
    StreamEvent,
    SystemMessage,
    TextBlock,
    ToolUseBlock,
    create_sdk_mcp_server,
    query,
    tool,
)

CONFIG: dict[str, Any] = {}


def options(case: str, **extra: Any) -> ClaudeAgentOptions:
    """Options for one case: agent-tui as the CLI, the case's own project folder, its stderr kept."""
    project = Path(CONFIG["projects"]) / case
    project.mkdir(parents=True, exist_ok=True)
    stderr = CONFIG.setdefault("stderr", {}).setdefault(case, [])
    return ClaudeAgentOptions(cli_path=CONFIG["cli"], cwd=str(project), stderr=stderr.append, **extra)


def seen(message: Any) -> dict[str, Any]:
    """A message as JSON the test can read."""
    if isinstance(message, ResultMessage):
        return {
            "kind": "result",
            "subtype": message.subtype,
            "is_error": message.is_error,
            "result": message.result,
            "stop_reason": message.stop_reason,
            "session_id": message.session_id,
            "num_turns": message.num_turns,
        }
    if isinstance(message, AssistantMessage):
        return {
            "kind": "assistant",
            "model": message.model,
            "text": "".join(b.text for b in message.content if isinstance(b, TextBlock)),
            "tools": [b.name for b in message.content if isinstance(b, ToolUseBlock)],
        }
    if isinstance(message, SystemMessage):
        return {"kind": "system", "subtype": message.subtype, "data": message.data}
    if isinstance(message, StreamEvent):
        return {"kind": "stream_event", "event": message.event}
    return {"kind": type(message).__name__}


async def case_query() -> dict[str, Any]:
    """query() with a prompt and options: system prompt, allowed/disallowed tools, mode, max turns, model, cwd."""
    opts = options(
        "query",
        system_prompt="You are the SDK test.",
        allowed_tools=["Read", "Glob"],
        disallowed_tools=["Bash"],
        permission_mode="acceptEdits",
        max_turns=4,
        model="claude-sonnet-5-5",
    )
    return {"messages": [seen(m) async for m in query(prompt="case:query list the files", options=opts)]}


async def case_partial() -> dict[str, Any]:
    """include_partial_messages: the reply arrives as StreamEvents too."""
    opts = options("partial", include_partial_messages=True)
    return {"messages": [seen(m) async for m in query(prompt="case:partial stream it", options=opts)]}


async def case_max_turns() -> dict[str, Any]:
    """max_turns stops the run: an error result, then the SDK raises the CLI's error as Claude Code's."""
    messages: list[dict[str, Any]] = []
    try:
        async for message in query(prompt="case:max_turns keep reading", options=options("max_turns", max_turns=1)):
            messages.append(seen(message))
    except Exception as exc:  # noqa: BLE001 - what the SDK raises after an error result is part of the case
        return {"messages": messages, "raised": f"{type(exc).__name__}: {exc}"}
    return {"messages": messages, "raised": None}


async def case_multi_turn() -> dict[str, Any]:
    """ClaudeSDKClient: several turns in one agent-tui process."""
    turns = []
    async with ClaudeSDKClient(options("multi_turn")) as client:
        info = await client.get_server_info()
        for prompt in ("case:multi_turn first", "second question"):
            await client.query(prompt)
            turns.append([seen(m) async for m in client.receive_response()])
    return {"turns": turns, "pid": (info or {}).get("pid")}


async def case_resume() -> dict[str, Any]:
    """resume: a second query() goes on with the first one's conversation, in a new agent-tui process."""
    first = [seen(m) async for m in query(prompt="case:resume remember 7", options=options("resume"))]
    session_id = first[-1]["session_id"]
    second = [seen(m) async for m in query(prompt="which number?", options=options("resume", resume=session_id))]
    return {"first": first, "second": second}


async def case_interrupt() -> dict[str, Any]:
    """interrupt() ends a running turn (a Bash command that would sleep 60 s), and the next turn runs."""
    opts = options("interrupt", allowed_tools=["Bash(sleep *)"])
    first: list[dict[str, Any]] = []
    async with ClaudeSDKClient(opts) as client:
        await client.query("case:interrupt wait a minute")
        started = 0.0
        async for message in client.receive_response():
            first.append(seen(message))
            if isinstance(message, AssistantMessage) and any(isinstance(b, ToolUseBlock) for b in message.content):
                await anyio.sleep(0.5)  # the command is running
                started = time.monotonic()
                await client.interrupt()
        took = time.monotonic() - started
        await client.query("and now?")
        second = [seen(m) async for m in client.receive_response()]
    return {"first": first, "second": second, "seconds_after_interrupt": took}


async def case_can_use_tool() -> dict[str, Any]:
    """can_use_tool decides: one Write allowed with a rewritten input, one denied with a message."""
    asked: list[dict[str, Any]] = []

    async def decide(name: str, tool_input: dict[str, Any], context: Any) -> Any:
        asked.append(
            {
                "tool": name,
                "input": tool_input,
                "suggestions": [s.to_dict() for s in context.suggestions],
                "tool_use_id": context.tool_use_id,
            }
        )
        if tool_input.get("file_path", "").endswith("allowed.txt"):
            return PermissionResultAllow(updated_input={**tool_input, "content": "written as the SDK said\n"})
        return PermissionResultDeny(message="The SDK host says: not this file.")

    opts = options("can_use_tool", can_use_tool=decide)
    messages = [seen(m) async for m in query(prompt="case:can_use_tool write two files", options=opts)]
    return {"messages": messages, "asked": asked}


async def case_hook() -> dict[str, Any]:
    """A PreToolUse hook given as a Python callback blocks a Bash call."""
    calls: list[dict[str, Any]] = []

    async def no_bash(hook_input: dict[str, Any], tool_use_id: str | None, context: Any) -> dict[str, Any]:
        calls.append({"input": hook_input, "tool_use_id": tool_use_id})
        return {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": "Bash is off in this test.",
            }
        }

    opts = options(
        "hook",
        permission_mode="bypassPermissions",
        hooks={"PreToolUse": [HookMatcher(matcher="Bash", hooks=[no_bash])]},
    )
    messages = [seen(m) async for m in query(prompt="case:hook make a file", options=opts)]
    return {"messages": messages, "calls": calls}


async def case_sdk_mcp() -> dict[str, Any]:
    """An in-process SDK MCP server's tool, called by the model through agent-tui."""
    calls: list[dict[str, Any]] = []

    @tool("add", "Add two numbers", {"a": int, "b": int})
    async def add(args: dict[str, Any]) -> dict[str, Any]:
        calls.append(args)
        return {"content": [{"type": "text", "text": f"The sum is {args['a'] + args['b']}."}]}

    server = create_sdk_mcp_server("calc", "1.0.0", tools=[add])
    opts = options("sdk_mcp", mcp_servers={"calc": server}, allowed_tools=["mcp__calc__add"])
    messages = [seen(m) async for m in query(prompt="case:sdk_mcp add 2 and 3", options=opts)]
    return {"messages": messages, "calls": calls}


async def case_bad_prompt() -> dict[str, Any]:
    """A prompt agent-tui cannot send (an image block): an error result and an error the SDK raises, no hang."""

    async def prompts() -> Any:
        yield {
            "type": "user",
            "message": {
                "role": "user",
                "content": [
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}
                ],
            },
        }

    messages: list[dict[str, Any]] = []
    try:
        async for message in query(prompt=prompts(), options=options("bad_prompt")):
            messages.append(seen(message))
    except Exception as exc:  # noqa: BLE001
        return {"messages": messages, "raised": f"{type(exc).__name__}: {exc}"}
    return {"messages": messages, "raised": None}


async def case_refused() -> dict[str, Any]:
    """An option agent-tui cannot honour: the SDK raises agent-tui's sentence, nothing hangs."""
    opts = options("refused", setting_sources=["project"])
    try:
        async for _ in query(prompt="case:refused hello", options=opts):
            pass
    except Exception as exc:  # noqa: BLE001
        return {"raised": f"{type(exc).__name__}: {exc}"}
    return {"raised": None}


CASES = {name.removeprefix("case_"): fn for name, fn in globals().items() if name.startswith("case_")}


async def main() -> None:
    results: dict[str, Any] = {}
    for name in CONFIG.get("only") or CASES:
        started = time.monotonic()
        try:
            with anyio.fail_after(CONFIG.get("case_timeout", 60)):
                results[name] = await CASES[name]()
        except BaseException as exc:  # noqa: BLE001 - a case that fails or hangs is reported, the others still run
            results[name] = {"error": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc()[-3000:]}
        results[name]["seconds"] = round(time.monotonic() - started, 2)
        results[name]["stderr"] = CONFIG.get("stderr", {}).get(name, [])
    print(json.dumps(results, default=str))


if __name__ == "__main__":
    CONFIG.update(json.loads(sys.argv[1]))
    anyio.run(main)
