"""One language server process and its session, spoken to through pygls's client on a shared asyncio loop.

The loop runs on its own daemon thread; the engine's threads call the blocking methods, which wait on it
with a deadline. A server that fails to start, crashes or stops answering is one sentence (`problem`), and
the calls that needed it return nothing instead of raising.
"""

from __future__ import annotations

import asyncio
import collections
import os
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .diagnostics import Diagnostic, from_lsp
from .servers import ServerSpec

#: stderr lines kept per server, and their total size
STDERR_LINES, STDERR_CHARS = 50, 8000


class LspLoop:
    """One asyncio loop on a daemon thread, shared by a session's servers."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="lsp-loop", daemon=True)
        self.thread.start()

    def run(self, coro: Any, timeout: float) -> Any:
        """Run `coro` on the loop and wait up to `timeout` seconds (TimeoutError after it; the coroutine is cancelled)."""
        future = asyncio.run_coroutine_threadsafe(coro, self.loop)
        try:
            return future.result(timeout)
        except TimeoutError:
            future.cancel()
            raise

    def submit(self, coro: Any) -> Any:
        """Start `coro` on the loop; its concurrent.futures.Future."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop)

    def close(self) -> None:
        """Cancel what still runs on the loop and let it end (as asyncio.run does), then stop and close the loop.

        A server stopped after it never answered `initialize` left pygls's reader and exit watcher and the stderr
        drain pending, and a start cancelled from the caller's thread had not run its cancellation: closed under
        them, each logged "Task was destroyed but it is pending!" when it was collected.
        """
        if self.loop.is_running():
            try:
                self.run(_cancel_the_rest(), 2.0)
            except Exception:  # noqa: BLE001 - the loop is stopped and closed either way
                pass
            self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(2.0)
        if not self.loop.is_running():
            self.loop.close()


async def _cancel_the_rest() -> None:
    """Cancel every other task on the running loop and wait until each has ended."""
    current = asyncio.current_task()
    rest = [task for task in asyncio.all_tasks() if task is not current]
    for task in rest:
        task.cancel()
    await asyncio.gather(*rest, return_exceptions=True)


def _uri(path: str) -> str:
    return Path(os.path.abspath(path)).as_uri()


class ServerConnection:
    """A started server: open documents, their diagnostics, and requests."""

    def __init__(
        self,
        spec: ServerSpec,
        root: str,
        loop: LspLoop,
        *,
        launch: Callable[[], dict[str, Any]] | None = None,
        on_exit: Callable[[ServerConnection], None] | None = None,
    ) -> None:
        self.spec = spec
        self.root = root
        self._loop = loop
        self._launch = launch
        self._on_exit = on_exit
        #: starting | ready | failed | exited | stopped
        self.state = "starting"
        self.problem: str | None = None
        self.stderr: collections.deque[str] = collections.deque(maxlen=STDERR_LINES)
        self.pid: int | None = None
        self.capabilities: Any = None
        self.client: Any = None
        #: uri -> (version the server said, diagnostics, when they arrived)
        self.published: dict[str, tuple[int | None, list[Diagnostic], float]] = {}
        self.versions: dict[str, int] = {}
        self._arrived: asyncio.Event | None = None
        self._drainer: Any = None
        #: set once the process was started (or could not be): `initialize` is timed from then on
        self.spawned = threading.Event()

    # --- start and stop (on the loop) ---------------------------------------------------

    async def start(self, timeout: float) -> None:
        """Start the process and initialize it (`timeout` for the answer); sets `state` and, on failure, `problem`.

        `spawned` is set between the two: on a loaded machine the start alone (imports, fork, exec) can outlast
        `timeout`, and a server that started but did not answer is not one that "did not start".
        """
        try:
            started = await self._spawn()
        finally:
            self.spawned.set()
        if started:
            await self._initialize(timeout)

    async def _spawn(self) -> bool:
        """Start the server's process with pygls's client; False (and `problem`) when it could not start."""
        from lsprotocol import types
        from pygls.lsp.client import LanguageClient

        connection = self

        class Client(LanguageClient):
            async def server_exit(self, server: asyncio.subprocess.Process) -> None:
                connection._exited(server.returncode)

        client = Client("agent-tui", "1")
        self._arrived = asyncio.Event()

        @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def _diagnostics(params: types.PublishDiagnosticsParams) -> None:
            items = [from_lsp(d) for d in params.diagnostics]
            self.published[params.uri] = (params.version, items, time.monotonic())
            assert self._arrived is not None
            self._arrived.set()
            self._arrived = asyncio.Event()

        @client.feature(types.WORKSPACE_CONFIGURATION)
        def _configuration(params: types.ConfigurationParams) -> list[Any]:
            return [None for _ in params.items]

        @client.feature(types.CLIENT_REGISTER_CAPABILITY)
        def _register(params: Any) -> None:
            return None

        @client.feature(types.WINDOW_WORK_DONE_PROGRESS_CREATE)
        def _progress(params: Any) -> None:
            return None

        @client.feature(types.WINDOW_LOG_MESSAGE)
        def _log(params: Any) -> None:
            return None

        self.client = client
        env = {**os.environ, **dict(self.spec.env)}
        extra: dict[str, Any] = {}
        if self._launch is not None:
            launched = self._launch()
            env.update(launched.get("env", {}))
            if launched.get("preexec_fn") is not None:
                extra["preexec_fn"] = launched["preexec_fn"]
        try:
            await client.start_io(
                self.spec.command, *self.spec.args, cwd=self.root, env=env, start_new_session=True, **extra
            )
        except (OSError, ValueError) as exc:
            self._fail(
                f"{self.spec.name} could not start ({self.spec.command}: {getattr(exc, 'strerror', None) or exc})"
            )
            return False
        server = client._server
        self.pid = server.pid if server is not None else None
        if server is not None and server.stderr is not None:
            self._drainer = asyncio.ensure_future(self._drain(server.stderr))
        return True

    async def _initialize(self, timeout: float) -> None:
        """Send `initialize` and wait up to `timeout` for the answer; `ready` after it."""
        from lsprotocol import types

        client = self.client
        params = types.InitializeParams(
            process_id=os.getpid(),
            root_uri=Path(self.root).as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=Path(self.root).as_uri(), name=Path(self.root).name)],
            initialization_options=self.spec.init_options,
            capabilities=types.ClientCapabilities(
                text_document=types.TextDocumentClientCapabilities(
                    synchronization=types.TextDocumentSyncClientCapabilities(did_save=True),
                    publish_diagnostics=types.PublishDiagnosticsClientCapabilities(version_support=True),
                    hover=types.HoverClientCapabilities(content_format=[types.MarkupKind.PlainText]),
                    document_symbol=types.DocumentSymbolClientCapabilities(hierarchical_document_symbol_support=True),
                ),
                workspace=types.WorkspaceClientCapabilities(configuration=True, workspace_folders=True),
            ),
        )
        try:
            result = await asyncio.wait_for(client.initialize_async(params), timeout)
        except TimeoutError:
            self._fail(f"{self.spec.name} did not answer `initialize` within {timeout:g} s")
            await self.stop()
            return
        except Exception as exc:  # noqa: BLE001 - a server that dies or answers nonsense is one sentence
            if self.state == "starting":
                self._fail(f"{self.spec.name} failed to initialize: {exc}")
            return
        self.capabilities = result.capabilities
        client.initialized(types.InitializedParams())
        self.state = "ready"

    async def _drain(self, stream: asyncio.StreamReader) -> None:
        """Keep the last lines of stderr, bounded in count and size (a chatty server never fills a pipe)."""
        while True:
            line = await stream.readline()
            if not line:
                return
            text = line.decode("utf-8", "replace").rstrip()[:500]
            self.stderr.append(text)
            while sum(len(s) for s in self.stderr) > STDERR_CHARS and len(self.stderr) > 1:
                self.stderr.popleft()

    def _fail(self, sentence: str) -> None:
        self.state = "failed"
        self.problem = sentence

    def _exited(self, code: int | None) -> None:
        if self.state in ("stopped", "failed"):
            return
        last = next((line for line in reversed(self.stderr) if line.strip()), "")
        self.state = "exited"
        self.problem = f"{self.spec.name} exited (code {code}){f': {last}' if last else ''}"
        if self._on_exit is not None:
            self._on_exit(self)

    async def stop(self) -> None:
        """shutdown and exit, then end the process group whatever it does."""
        from lsprotocol import types

        was = self.state
        self.state = "stopped" if was != "failed" else was
        client = self.client
        if client is None:
            return
        if was == "ready":
            try:
                await asyncio.wait_for(client.shutdown_async(None), 1.0)
                client.exit(None)
            except Exception:  # noqa: BLE001 - it is being stopped either way
                pass
        server = client._server
        if server is not None and server.returncode is None:
            try:
                await asyncio.wait_for(server.wait(), 1.0)
            except TimeoutError:
                pass
        self.kill()
        client._stop_event.set()
        transport = getattr(server, "_transport", None)
        if transport is not None:  # its pipes closed while the loop runs: collected after the loop closed, an
            transport.close()  # unclosed one raised "Event loop is closed" from its __del__
        _ = types  # (imported for the protocol's converters above)

    def kill(self) -> None:
        """SIGKILL the server's process group (its children too); safe from any thread, twice."""
        if self.pid is None:
            return
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    # --- documents (on the loop) ------------------------------------------------------

    async def sync(self, path: str, text: str, language: str) -> tuple[str, int, float]:
        """Send `text` as the document's new content (didOpen the first time, else didChange) and didSave it."""
        from lsprotocol import types

        uri = _uri(path)
        sent = time.monotonic()
        if uri not in self.versions:
            self.versions[uri] = 1
            self.client.text_document_did_open(
                types.DidOpenTextDocumentParams(
                    text_document=types.TextDocumentItem(uri=uri, language_id=language, version=1, text=text)
                )
            )
        else:
            self.versions[uri] += 1
            self.client.text_document_did_change(
                types.DidChangeTextDocumentParams(
                    text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=self.versions[uri]),
                    content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
                )
            )
        self.client.text_document_did_save(
            types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri), text=text)
        )
        return uri, self.versions[uri], sent

    async def diagnostics(self, uri: str, version: int, sent: float, budget: float) -> list[Diagnostic] | None:
        """The server's diagnostics for `uri` at `version` (or sent after `sent`); None when the budget ran out."""
        from lsprotocol import types

        if self.capabilities is not None and getattr(self.capabilities, "diagnostic_provider", None):
            try:
                report = await asyncio.wait_for(
                    self.client.text_document_diagnostic_async(
                        types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri))
                    ),
                    budget,
                )
            except (TimeoutError, Exception):  # noqa: BLE001 - a pull that fails falls back to what was pushed
                report = None
            items = getattr(report, "items", None)
            if items is not None:
                return [from_lsp(d) for d in items]
        deadline = time.monotonic() + budget
        while True:
            got = self.published.get(uri)
            if got is not None and ((got[0] is not None and got[0] >= version) or (got[0] is None and got[2] >= sent)):
                return got[1]
            left = deadline - time.monotonic()
            if left <= 0 or self.state != "ready" or self._arrived is None:
                return None
            try:
                await asyncio.wait_for(self._arrived.wait(), left)
            except TimeoutError:
                return None

    async def close_document(self, uri: str) -> None:
        from lsprotocol import types

        if uri in self.versions and self.state == "ready":
            self.client.text_document_did_close(
                types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
            )
        self.versions.pop(uri, None)
        self.published.pop(uri, None)

    async def request(self, method: str, params: Any, timeout: float) -> Any:
        """One request to the server (the LSP tool's), None when it is not ready."""
        if self.state != "ready":
            return None
        return await asyncio.wait_for(self.client.protocol.send_request_async(method, params), timeout)
