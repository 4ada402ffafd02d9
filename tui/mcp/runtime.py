"""MCP inside one agent session: the manager, its changes and messages reported, and the tool set between turns.

The session owns one `McpRuntime` when servers are configured. Servers connect in the
background (`start()`); at the start of each turn the loop calls `before_turn`, which
waits only for servers the prompt names (in -p: for every server), re-lists what the
servers said changed, and hands back the new tool set when it differs, so the tools[]
of a turn never change while it runs (the prompt cache holds).
"""

from __future__ import annotations

import re
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TextIO

from tui.mcp.connection import ServerState
from tui.mcp.manager import McpManager
from tui.mcp.tools import build_tools
from tui.text.sanitize import visible
from tui.tools.base import Tool

if TYPE_CHECKING:
    from tui.agent.session import AgentSession

#: JSON-RPC messages kept for the /mcp screen's message view
KEPT_MESSAGES = 5000
#: `@server:uri` in a prompt (Claude Code's resource mention)
MENTION = re.compile(r"(?<![\w@])@([A-Za-z0-9_-]+):(\S+)")


class McpRuntime:
    """The MCP servers of one session."""

    def __init__(
        self,
        session: AgentSession,
        on_change: Callable[[ServerState], None],
        on_message: Callable[[str, str, dict[str, Any]], None],
    ) -> None:
        """`on_change` hears each server's new state, `on_message` each JSON-RPC message (server, direction, it)."""
        options = session.options
        self.session = session
        self._on_message = on_message
        self.max_tokens = options.mcp_max_output_tokens
        self.manager = McpManager(
            options.mcp_servers, project_dir=options.project_dir, on_change=on_change, on_message=self._message
        )
        self.tools: list[Tool] = []
        #: (time, server, "send" | "recv", message), oldest first
        self.messages: deque[tuple[float, str, str, dict[str, Any]]] = deque(maxlen=KEPT_MESSAGES)
        self._signature: tuple[Any, ...] = ()
        self.started = False

    def start(self) -> None:
        """Connect every server in the background (idempotent)."""
        self.started = True
        self.manager.start()

    def _message(self, server: str, direction: str, message: dict[str, Any]) -> None:
        self.messages.append((time.time(), server, direction, message))
        self._on_message(server, direction, message)

    def named_in(self, prompt: str) -> list[str]:
        """Servers a prompt names: `mcp__server…`, `@server:`, or the server's name as a word."""
        found = []
        for name in self.manager.states:
            if re.search(rf"(?<![\w-])(?:mcp__|@)?{re.escape(name)}(?![\w-])", prompt):
                found.append(name)
        return found

    def before_turn(self, prompt: str, cancel: threading.Event, wait_all: bool) -> list[Tool] | None:
        """Wait for the servers this turn needs, refresh changed lists; the new MCP tool set, or None if unchanged."""
        self.start()
        names = None if wait_all else self.named_in(prompt)
        if names is None or names:
            self.manager.wait(names, cancel=cancel)
        self.manager.refresh_changed()
        return self.sync_tools()

    def sync_tools(self) -> list[Tool] | None:
        """The MCP tool set when it differs from the one last handed out."""
        signature = tuple(
            (s.name, s.status, s.generation, tuple(map(_key, s.tools)), bool(s.resources))
            for s in self.manager.states.values()
        )
        if signature == self._signature:
            return None
        self._signature = signature
        taken = {t.name for t in self.session.base_tools}
        self.tools = build_tools(self.manager, self.max_tokens, taken)
        return self.tools

    def attachments(self, prompt: str, cancel: threading.Event) -> list[dict[str, Any]]:
        """Text blocks holding each `@server:uri` resource the prompt mentions (a sentence when one cannot be read)."""
        from tui.mcp.results import resource_text

        blocks: list[dict[str, Any]] = []
        for server, uri in MENTION.findall(prompt):
            if server not in self.manager.states:
                continue
            uri = uri.rstrip(".,;:!?)")
            try:
                result = self.manager.call(self.manager.connection(server).read_resource(uri), cancel)
                content = resource_text(uri, result, self.max_tokens)
            except Exception as exc:  # noqa: BLE001 - the turn goes on without it, saying why
                from tui.mcp.connection import describe_failure

                content = f"[The resource @{server}:{uri} could not be read: {describe_failure(exc)}]"
            if isinstance(content, str):
                blocks.append({"type": "text", "text": content})
            else:
                blocks += content
        return blocks

    def start_for_print(self, warn: TextIO | None) -> None:
        """-p: connect every server and wait for all; in text mode one line on `warn` per failed server."""
        self.start()
        self.manager.wait()
        for state in self.manager.states.values():
            if warn is not None and state.status == "failed":
                warn.write(
                    visible(
                        f"agent-tui: MCP server {state.name} failed: {state.error}; "
                        f"its tools are not available (log: {state.log_path})."
                    )
                    + "\n"
                )

    def prompt_commands(self) -> list[tuple[str, str, str, dict[str, Any]]]:
        """(`mcp__server__prompt`, description, server, prompt) for every prompt of a connected server."""
        from tui.mcp.names import sanitise

        found = []
        for state in self.manager.states.values():
            if state.status == "connected":
                for prompt in state.prompts:
                    name = f"mcp__{sanitise(state.name)}__{sanitise(str(prompt.get('name', '')))}"
                    found.append((name, str(prompt.get("description") or ""), state.name, prompt))
        return found

    def run_prompt(self, command: str, words: str, cancel: threading.Event | None = None) -> str:
        """The text of `/mcp__server__prompt words`: `prompts/get` with the words as its arguments, in order.

        Raises LookupError (one sentence) for an unknown prompt or missing arguments.
        """
        match = next((p for p in self.prompt_commands() if p[0] == command), None)
        if match is None:
            raise LookupError(f"No connected MCP server offers the prompt /{command}.")
        _, _, server, prompt = match
        specs = [a for a in prompt.get("arguments") or [] if isinstance(a, dict)]
        values = words.split(maxsplit=max(len(specs) - 1, 0)) if words else []
        missing = [a["name"] for a in specs[len(values) :] if a.get("required")]
        if missing:
            usage = " ".join(f"<{a['name']}>" for a in specs)
            raise LookupError(f"/{command} needs {', '.join(missing)}: /{command} {usage}")
        arguments = {a["name"]: v for a, v in zip(specs, values)}
        result = self.manager.call(self.manager.connection(server).get_prompt(str(prompt["name"]), arguments), cancel)
        parts = []
        for message in result.get("messages") or []:
            content = message.get("content") or {}
            if content.get("type") == "text":
                parts.append(str(content.get("text", "")))
            elif content.get("type") == "resource" and isinstance(content.get("resource"), dict):
                parts.append(str(content["resource"].get("text", "")))
        return "\n\n".join(p for p in parts if p)

    def statuses(self) -> list[dict[str, str]]:
        """`[{name, status}]` as Claude Code's stream-json `system/init` lists `mcp_servers`."""
        shown = {"pending": "pending", "connected": "connected", "failed": "failed", "disabled": "disabled"}
        return [{"name": s.name, "status": shown.get(s.status, s.status)} for s in self.manager.states.values()]

    def close(self) -> None:
        self.manager.close()


def _key(spec: dict[str, Any]) -> str:
    return f"{spec.get('name')}|{spec.get('description')}|{sorted((spec.get('inputSchema') or {}).items())!r}"
