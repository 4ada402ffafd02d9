"""The MCP client manager: one asyncio loop thread for every server, and a blocking API for the engine.

The engine runs on worker threads; the `mcp` SDK is asyncio. Every server lives on one
loop thread ("mcp"); the engine's calls cross over with `run_coroutine_threadsafe` and
wait while watching the turn's cancel event (Esc cancels the task, and the SDK sends
`notifications/cancelled`). The SDK is imported on that thread, so a configured server
costs the start path nothing, and no server configured means no import at all.
"""

from __future__ import annotations

import asyncio
import os
import re
import threading
import time
from collections.abc import Callable, Coroutine, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import Any, TypeVar

from tui.mcp.config import McpServerConfig
from tui.mcp.connection import Connection, ServerState

T = TypeVar("T")
#: seconds a server gets to start (MCP_TIMEOUT, in ms, as Claude Code reads it)
DEFAULT_START_TIMEOUT = 30.0
#: what a cancelled call waits for its `notifications/cancelled` to leave
CANCEL_FLUSH_SECONDS = 1.0


def _ms_env(name: str, default: float | None) -> float | None:
    raw = os.environ.get(name, "").strip()
    try:
        return int(raw) / 1000 if raw and int(raw) > 0 else default
    except ValueError:
        return default


def log_folder(project_dir: Path) -> Path:
    """Where server stderr logs go: `<data dir>/mcp-logs/<project>/<server>.log`."""
    from tui.config.paths import user_data_dir

    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", str(project_dir)).strip("-") or "root"
    return user_data_dir() / "mcp-logs" / slug


class McpCancelled(Exception):
    """The user interrupted an MCP request; the server was told with `notifications/cancelled`."""


class McpManager:
    """Every configured server of a session: connecting, state, calls, reconnect and shutdown."""

    def __init__(
        self,
        configs: Sequence[McpServerConfig],
        *,
        project_dir: Path,
        on_change: Callable[[ServerState], None] | None = None,
        on_message: Callable[[str, str, dict[str, Any]], None] | None = None,
        log_dir: Path | None = None,
    ) -> None:
        self.project_dir = project_dir
        folder = log_dir or log_folder(project_dir)
        self.states: dict[str, ServerState] = {c.name: ServerState(c, folder / f"{c.name}.log") for c in configs}
        self.on_change = on_change or (lambda state: None)
        self.on_message = on_message or (lambda server, direction, message: None)
        self.start_timeout = _ms_env("MCP_TIMEOUT", DEFAULT_START_TIMEOUT) or DEFAULT_START_TIMEOUT
        self.tool_timeout = _ms_env("MCP_TOOL_TIMEOUT", None)
        self._connections: dict[str, Connection] = {}
        self._tasks: dict[str, Future[None]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._settled = threading.Condition(self._lock)
        self._closed = False
        #: the Agent SDK's control channel, for its `"type": "sdk"` servers (tui/headless/sdk_control); None without one
        self.sdk_channel: Callable[[dict[str, Any]], Future[dict[str, Any]]] | None = None

    # --- the loop thread ---------------------------------------------------------------

    def start(self) -> None:
        """Start the loop thread and connect every enabled server in parallel (returns at once)."""
        with self._lock:
            if self._thread is not None or self._closed:
                return
            self._loop = asyncio.new_event_loop()
            self._thread = threading.Thread(target=self._run_loop, name="mcp", daemon=True)
            self._thread.start()
        for name, state in self.states.items():
            if state.status != "disabled":
                self._connect(name)

    def add(self, config: McpServerConfig, enabled: bool = True) -> bool:
        """Take a server approved after start (tui/mcp/approval.py); connects it when running (and `enabled`, else it
        is listed as disabled); False if known."""
        if config.name in self.states:
            return False
        folder = next(iter(self.states.values())).log_path.parent if self.states else log_folder(self.project_dir)
        state = self.states[config.name] = ServerState(config, folder / f"{config.name}.log")
        if not enabled:
            state.status = "disabled"
            self._changed(state)
        elif self._thread is not None:
            self._connect(config.name)
        return True

    def _run_loop(self) -> None:
        assert self._loop is not None
        asyncio.set_event_loop(self._loop)
        self._loop.run_forever()

    def submit(self, coro: Coroutine[Any, Any, T]) -> Future[T]:
        """Run `coro` on the MCP loop."""
        if self._loop is None:
            coro.close()
            raise ConnectionError("MCP servers are not started.")
        return asyncio.run_coroutine_threadsafe(coro, self._loop)

    def _connect(self, name: str) -> None:
        state = self.states[name]
        state.status, state.error, state.stderr_tail = "pending", "", ""
        state.warnings = []
        self._changed(state)
        connection = Connection(
            state,
            self.project_dir,
            timeout=self.start_timeout,
            tool_timeout=self.tool_timeout,
            tap=lambda d, m: self.on_message(name, d, m),
            changed=lambda: self._changed(state),
        )
        connection.sdk_channel = self.sdk_channel
        self._connections[name] = connection
        self._tasks[name] = self.submit(connection.run())

    def _changed(self, state: ServerState) -> None:
        with self._settled:
            self._settled.notify_all()
        self.on_change(state)

    # --- waiting ---------------------------------------------------------------------

    def pending(self, names: Sequence[str] | None = None) -> list[str]:
        """Servers (of `names`, default all) still starting."""
        return [n for n, s in self.states.items() if s.status == "pending" and (names is None or n in names)]

    def wait(
        self, names: Sequence[str] | None = None, timeout: float | None = None, cancel: threading.Event | None = None
    ) -> bool:
        """Block until the servers have connected or failed; False on timeout or cancel."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._settled:
            while self.pending(names):
                if cancel is not None and cancel.is_set():
                    return False
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self._settled.wait(0.05 if left is None else min(left, 0.05))
        return True

    # --- calls from the engine ---------------------------------------------------------

    def connection(self, server: str) -> Connection:
        if server not in self._connections:
            raise ConnectionError(f"There is no MCP server named {server}.")
        return self._connections[server]

    def call(self, coro: Coroutine[Any, Any, T], cancel: threading.Event | None = None) -> T:
        """Run `coro` on the MCP loop and wait; `cancel` set: the task is cancelled and McpCancelled raised."""
        finished = threading.Event()

        async def guarded() -> T:
            try:
                return await coro
            finally:
                finished.set()  # after the SDK's `notifications/cancelled` went out

        future = self.submit(guarded())
        while True:
            if cancel is not None and cancel.is_set():
                future.cancel()
                finished.wait(CANCEL_FLUSH_SECONDS)
                raise McpCancelled()
            try:
                return future.result(timeout=0.05)
            except TimeoutError:
                continue

    def refresh_changed(self, timeout: float = 10.0) -> bool:
        """Between turns: re-list what servers said changed; True when any list was re-read."""
        busy = [c for c in self._connections.values() if c.state.changed and c.session is not None]
        if not busy:
            return False

        async def all_of() -> None:
            await asyncio.gather(*(c.refresh() for c in busy))

        try:
            self.submit(all_of()).result(timeout)
        except Exception:  # noqa: BLE001 - each refresh reports its own failure
            pass
        return True

    # --- control -----------------------------------------------------------------------

    def _stop(self, name: str, wait: float = 5.0) -> None:
        connection = self._connections.get(name)
        task = self._tasks.get(name)
        if connection is None or task is None or self._loop is None:
            return
        self._loop.call_soon_threadsafe(connection.stop.set)
        try:
            task.result(wait)
        except Exception:  # noqa: BLE001 - a server that will not stop is killed by the tracker at exit
            task.cancel()

    def reconnect(self, name: str) -> None:
        """End the server's session (if any) and connect again, in the background."""
        state = self.states[name]
        self.start()
        self._stop(name)
        if state.status == "disabled":
            state.status = "pending"
        self._connect(name)

    def set_enabled(self, name: str, enabled: bool) -> None:
        """Disable (end its session, hide its tools) or enable (connect) one server for this session."""
        state = self.states[name]
        if enabled:
            if state.status == "disabled":
                self.start()  # first: a server still disabled is not connected by it
                state.status = "pending"
                self.reconnect(name)
            return
        state.status = "disabled"
        self._stop(name)
        state.status, state.error = "disabled", ""
        self._changed(state)

    def close(self, wait: float = 5.0) -> None:
        """End every server session (process groups included) and stop the loop thread."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        if self._loop is None:
            return
        for connection in self._connections.values():
            self._loop.call_soon_threadsafe(connection.stop.set)
        deadline = time.monotonic() + wait
        for task in self._tasks.values():
            try:
                task.result(max(0.0, deadline - time.monotonic()))
            except Exception:  # noqa: BLE001
                task.cancel()
        self._loop.call_soon_threadsafe(self._loop.stop)
        if self._thread is not None:
            self._thread.join(2)
