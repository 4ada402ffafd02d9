"""Helpers for the ACP tests: `agent-tui acp` as a subprocess, driven by the SDK's own client classes."""

from __future__ import annotations

import asyncio
import inspect
import os
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

acp = pytest.importorskip("acp", reason="the ACP SDK (agent-client-protocol, in the test extra) is not installed")

from acp import PROTOCOL_VERSION, connect_to_agent  # noqa: E402
from acp.schema import (  # noqa: E402
    AllowedOutcome,
    ClientCapabilities,
    DeniedOutcome,
    FileSystemCapabilities,
    ReadTextFileResponse,
    RequestPermissionResponse,
)

ROOT = Path(__file__).resolve().parents[2]
LIMIT = 50 * 1024 * 1024


@dataclass
class Client:
    """An ACP client that records every update and answers permission questions with `answer` (None: cancelled)."""

    answer: Callable[[Any, list[Any]], Any] = lambda tool_call, options: "allow_once"
    #: what `fs/read_text_file` returns per path (the editor's buffers); None: no fs capability offered
    buffers: dict[str, str] | None = None
    updates: list[Any] = field(default_factory=list)
    asked: list[tuple[Any, list[Any]]] = field(default_factory=list)
    reads: list[str] = field(default_factory=list)
    writes: list[tuple[str, str]] = field(default_factory=list)
    changed: asyncio.Condition = field(default_factory=asyncio.Condition)

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append(update)
        async with self.changed:
            self.changed.notify_all()

    async def wait_for(self, predicate: Callable[[Client], bool]) -> None:
        """Until `predicate(self)` holds (checked after each update or question)."""
        async with self.changed:
            await self.changed.wait_for(lambda: predicate(self))

    async def request_permission(
        self, options: list[Any], session_id: str, tool_call: Any, **kwargs: Any
    ) -> RequestPermissionResponse:
        self.asked.append((tool_call, options))
        async with self.changed:
            self.changed.notify_all()
        picked = self.answer(tool_call, options)
        if inspect.isawaitable(picked):
            picked = await picked
        if picked is None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=picked))

    async def read_text_file(
        self, session_id: str, path: str, line: int | None = None, limit: int | None = None, **kwargs: Any
    ) -> ReadTextFileResponse:
        self.reads.append(path)
        assert self.buffers is not None
        return ReadTextFileResponse(content=self.buffers.get(path, Path(path).read_text()))

    async def write_text_file(self, session_id: str, path: str, content: str, **kwargs: Any) -> None:
        self.writes.append((path, content))
        assert self.buffers is not None
        self.buffers[path] = content
        Path(path).write_text(content)

    def of(self, kind: str) -> list[Any]:
        """The updates of one `sessionUpdate` kind, in order."""
        return [u for u in self.updates if u.session_update == kind]

    def text(self, kind: str = "agent_message_chunk") -> str:
        return "".join(u.content.text for u in self.of(kind))

    def capabilities(self) -> ClientCapabilities:
        fs = self.buffers is not None
        return ClientCapabilities(fs=FileSystemCapabilities(read_text_file=fs, write_text_file=fs), terminal=False)


def acp_env(home: Path, base_url: str | None) -> dict[str, str]:
    """The agent's environment: the suite's, the fake API (or none), its own settings and data folders."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env.update(XDG_CONFIG_HOME=str(home / "config"), XDG_DATA_HOME=str(home / "data"), PYTHONPATH=str(ROOT))
    if base_url is not None:
        env.update(ANTHROPIC_BASE_URL=base_url, ANTHROPIC_API_KEY="sk-test")
    return env


@asynccontextmanager
async def agent(
    client: Client, project: Path, home: Path, base_url: str | None, *args: str
) -> AsyncIterator[tuple[Any, Any]]:
    """`agent-tui acp ARGS` started in `project` and initialized: (the client-side connection, the process).

    On the way out the client closes the agent's stdin, and the agent must then exit by itself, with 0.
    """
    with open(home / "acp-stderr.txt", "w") as log:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "tui.cli.main",
            "acp",
            *args,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=log,
            env=acp_env(home, base_url),
            cwd=project,
            limit=LIMIT,
        )
        conn = connect_to_agent(client, proc.stdin, proc.stdout)
        try:
            await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=client.capabilities())
            yield conn, proc
        finally:
            await hang_up(conn, proc)


async def hang_up(conn: Any, proc: Any) -> int:
    """Close the agent's stdin (the client leaves) and wait for it to exit on its own; its exit code."""
    if proc.stdin is not None and not proc.stdin.is_closing():
        proc.stdin.close()
    try:
        code = await asyncio.wait_for(proc.wait(), timeout=60)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        raise AssertionError("agent-tui acp did not exit after the client closed its stdin") from None
    finally:
        await conn.close()
    return code


def stderr_of(home: Path) -> str:
    return (home / "acp-stderr.txt").read_text()


def sessions_dir(home: Path) -> Path:
    return home / "data" / "agent-tui" / "sessions"
