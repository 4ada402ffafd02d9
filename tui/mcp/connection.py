"""One MCP server's life on the MCP event loop: connect, list, serve calls, end.

The whole life runs in one task (the SDK's context managers must be left in the task
that entered them). Results are handed on as wire-format dicts (`inputSchema`,
`isError`, …), so the rest of agent-tui reads the protocol, not one SDK version's classes.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui.mcp.config import McpServerConfig, ServerCwdMissing

if TYPE_CHECKING:
    from mcp import ClientSession

#: server-side lists a `notifications/*/list_changed` refreshes
LIST_CHANGED = {
    "notifications/tools/list_changed": "tools",
    "notifications/resources/list_changed": "resources",
    "notifications/prompts/list_changed": "prompts",
}
STDERR_TAIL_LINES = 12
#: an HTTP or SSE server that drops is connected again this many times, after 1 s, 2 s, 4 s… (Claude Code's policy)
RECONNECT_ATTEMPTS = 5
RECONNECT_DELAY = 1.0


@dataclass
class ServerState:
    """What agent-tui knows about one server; read from any thread, written on the MCP loop."""

    config: McpServerConfig
    log_path: Path
    #: pending | connected | failed | disabled
    status: str = "pending"
    error: str = ""
    stderr_tail: str = ""
    #: wire-format lists (`tools/list`, `resources/list`, `prompts/list` entries)
    tools: list[dict[str, Any]] = field(default_factory=list)
    resources: list[dict[str, Any]] = field(default_factory=list)
    prompts: list[dict[str, Any]] = field(default_factory=list)
    #: sentences about odd things the server did (non-JSON on stdout, a tool skipped)
    warnings: list[str] = field(default_factory=list)
    server_info: str = ""
    #: which lists the server said changed since they were last read
    changed: set[str] = field(default_factory=set)
    started_at: float = 0.0
    #: bumps on every (re)connect, so the tool set can tell a new session from the old one
    generation: int = 0

    @property
    def name(self) -> str:
        return self.config.name


def stderr_tail(log_path: Path, lines: int = STDERR_TAIL_LINES) -> str:
    """The last lines the server wrote to its log since it was last started."""
    try:
        with open(log_path, "rb") as fh:
            fh.seek(0, 2)
            size = fh.tell()
            fh.seek(max(0, size - 16384))
            text = fh.read().decode("utf-8", "replace")
    except OSError:
        return ""
    start = text.rfind("\n--- ")
    text = text[start + 1 :] if start >= 0 else text
    body = [line for line in text.splitlines() if not line.startswith("--- ")]
    return "\n".join(body[-lines:])


def _innermost(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def describe_failure(exc: BaseException) -> str:
    """One sentence for why a server could not start or went away."""
    exc = _innermost(exc)
    if isinstance(exc, ServerCwdMissing):
        return str(exc)
    if isinstance(exc, FileNotFoundError):
        return f"the command was not found ({exc.filename or exc})"
    if isinstance(exc, PermissionError):
        return f"the command cannot be run ({exc.strerror or exc})"
    if isinstance(exc, (TimeoutError, asyncio.TimeoutError)):
        return "it did not answer in time"
    text = str(exc).strip() or type(exc).__name__
    if "Connection closed" in text:
        return "the server closed the connection"
    return text.splitlines()[0][:300]


def _wire(model: Any) -> dict[str, Any]:
    return model.model_dump(by_alias=True, mode="json", exclude_none=True)


class Connection:
    """The live session of one server, driven by `run()` on the MCP loop."""

    def __init__(
        self,
        state: ServerState,
        project_dir: Path,
        *,
        timeout: float,
        tool_timeout: float | None,
        tap: Callable[[str, dict[str, Any]], None],
        changed: Callable[[], None],
    ) -> None:
        self.state = state
        self.project_dir = project_dir
        self.timeout = state.config.timeout or timeout
        self.tool_timeout = tool_timeout
        self.tap = tap
        self.on_changed = changed
        self.session: ClientSession | None = None
        self.stop = asyncio.Event()
        self.pid: int | None = None
        self._tool_list_ids: set[Any] = set()
        self._relist: asyncio.Task[None] | None = None
        #: reaches an Agent SDK server (tui/mcp/sdk_transport.py); set by the manager
        self.sdk_channel: Any = None

    def _tap(self, direction: str, message: dict[str, Any]) -> None:
        if direction == "send" and message.get("method") == "tools/list":
            self._tool_list_ids.add(message.get("id"))
        if direction == "recv" and (which := LIST_CHANGED.get(message.get("method", ""))):
            self.state.changed.add(which)
            if which == "prompts":  # not part of tools[]: re-read now, so `/` completion and the palette follow
                self._relist = asyncio.get_running_loop().create_task(self.refresh({"prompts"}))
        self.tap(direction, message)

    def _screen(self, message: Any) -> None:
        """Drop a listed tool whose input schema is not an object (one sentence), so the others still load."""
        result = getattr(message, "result", None)
        if getattr(message, "id", None) not in self._tool_list_ids or not isinstance(result, dict):
            return
        self._tool_list_ids.discard(message.id)
        tools = result.get("tools")
        if not isinstance(tools, list):
            return
        kept = []
        for tool in tools:
            schema = tool.get("inputSchema") if isinstance(tool, dict) else None
            if isinstance(schema, dict) and schema.get("type") == "object":
                kept.append(tool)
            else:
                name = tool.get("name", "?") if isinstance(tool, dict) else "?"
                self._warn(f"offers the tool {name!r} whose input schema is not an object; that tool was skipped")
        result["tools"] = kept

    def _warn(self, sentence: str) -> None:
        warning = f"{self.state.name} {sentence}."
        if warning not in self.state.warnings:  # a re-list must not repeat it
            self.state.warnings.append(warning)
            self.on_changed()

    async def run(self) -> None:
        """Hold a session until `stop`; an HTTP/SSE server that dropped is reconnected with backoff (stdio is not)."""
        attempt = 0
        while True:
            if await self._run_once():
                attempt = 0
            if (
                self.stop.is_set()
                or self.state.config.transport in ("stdio", "sdk")
                or self.state.status != "failed"
                or not self.state.generation
                or attempt >= RECONNECT_ATTEMPTS
            ):
                return
            delay = RECONNECT_DELAY * 2**attempt
            attempt += 1
            self.state.error += f"; reconnecting in {delay:g} s (attempt {attempt} of {RECONNECT_ATTEMPTS})"
            self.on_changed()
            try:
                await asyncio.wait_for(self.stop.wait(), delay)
                return
            except TimeoutError:
                self.state.status = "pending"
                self.on_changed()

    async def _run_once(self) -> bool:
        """Connect, list, then hold the session until `stop` or the server's side ends; True if it connected."""
        import anyio
        from mcp import ClientSession

        from tui.mcp.transport import open_transport

        state = self.state
        state.started_at = time.monotonic()
        closed = anyio.Event()
        connected = False
        try:
            transport = open_transport(
                state.config,
                self.project_dir,
                state.log_path,
                self._tap,
                self._warn,
                closed,
                self._screen,
                on_spawn=lambda proc: setattr(self, "pid", proc.pid),
                sdk_channel=self.sdk_channel,
            )
            async with transport as (read, write), ClientSession(read, write) as session:
                with anyio.fail_after(self.timeout):
                    result = await session.initialize()
                    info = getattr(result, "server_info", None)
                    state.server_info = f"{getattr(info, 'name', '')} {getattr(info, 'version', '')}".strip()
                    await self.list_all(session, {"tools", "resources", "prompts"})
                self.session = session
                state.generation += 1
                connected = True
                state.status, state.error = "connected", ""
                self.on_changed()
                await _first_of(self.stop.wait(), closed.wait())
                self.session = None
                if not self.stop.is_set():
                    self._fail("the server closed the connection")
        except asyncio.CancelledError:
            self._fail("stopped")
            raise
        except BaseException as exc:  # noqa: BLE001 - any failure of a server is shown, never raised
            if isinstance(_innermost(exc), TimeoutError) and self.session is None:
                setting = "its timeout setting" if state.config.timeout else "MCP_TIMEOUT"
                self._fail(f"it did not finish starting within {self.timeout:g} s ({setting})")
            elif not self.stop.is_set():
                self._fail(describe_failure(exc))
        finally:
            self.session = None
            if self.stop.is_set() and state.status != "disabled":
                state.status = "pending" if state.status == "connected" else state.status
            state.stderr_tail = stderr_tail(state.log_path) if state.config.transport == "stdio" else ""
            self.on_changed()
        return connected

    def _fail(self, reason: str) -> None:
        self.session = None
        if self.state.status == "disabled":
            return
        if self.state.config.transport == "stdio":
            self.state.stderr_tail = stderr_tail(self.state.log_path)
        self.state.error = reason
        self.state.status = "failed"  # last: a reader that sees "failed" sees why
        self.on_changed()

    async def list_all(self, session: ClientSession, which: set[str]) -> None:
        """Read the lists the server offers (paginated); a failed refresh keeps the old lists."""
        caps = (
            session.server_capabilities if not callable(session.server_capabilities) else session.server_capabilities()
        )
        for kind in ("tools", "resources", "prompts"):
            if kind not in which:
                continue
            if caps is not None and getattr(caps, kind, None) is None:
                setattr(self.state, kind, [])
                continue
            method = getattr(session, f"list_{kind}")
            items: list[dict[str, Any]] = []
            cursor: str | None = None
            for _ in range(100):  # a server that pages for ever is cut off
                if cursor:
                    from mcp.types import PaginatedRequestParams

                    page = await method(params=PaginatedRequestParams(cursor=cursor))
                else:
                    page = await method()
                data = _wire(page)
                items += data.get(kind, [])
                cursor = data.get("nextCursor")
                if not cursor:
                    break
            setattr(self.state, kind, items)
            self.state.changed.discard(kind)

    async def refresh(self, only: set[str] | None = None) -> None:
        """Re-read the lists the server said changed (those of them in `only`); a failure keeps the old ones."""
        session = self.session
        which = self.state.changed & only if only is not None else set(self.state.changed)
        if session is None or not which:
            return
        try:
            with_timeout = asyncio.wait_for(self.list_all(session, which), self.timeout)
            await with_timeout
        except Exception as exc:  # noqa: BLE001
            self._warn(f"could not re-list after a change ({describe_failure(exc)}); the old lists stay")
            self.state.changed -= which
        self.on_changed()

    def _live(self) -> Any:
        if self.session is None:
            status = self.state.status
            why = f": {self.state.error}" if status == "failed" and self.state.error else ""
            raise ConnectionError(f"The MCP server {self.state.name} is not connected ({status}{why}).")
        return self.session

    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any],
        progress: Callable[[float, float | None, str | None], None] | None = None,
    ) -> dict[str, Any]:
        """`tools/call`; the result as a wire dict (`content`, `structuredContent`, `isError`)."""
        session = self._live()

        async def on_progress(done: float, total: float | None, message: str | None) -> None:
            if progress is not None:
                progress(done, total, message)

        result = await session.call_tool(
            name, arguments, read_timeout_seconds=self.tool_timeout, progress_callback=on_progress
        )
        return _wire(result)

    async def read_resource(self, uri: str) -> dict[str, Any]:
        """`resources/read`; `{"contents": [...]}`."""
        return _wire(await self._live().read_resource(uri))

    async def get_prompt(self, name: str, arguments: dict[str, str]) -> dict[str, Any]:
        """`prompts/get`; `{"messages": [...]}`."""
        return _wire(await self._live().get_prompt(name, arguments))


async def _first_of(*awaitables: Any) -> None:
    tasks = [asyncio.ensure_future(a) for a in awaitables]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
