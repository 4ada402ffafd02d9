"""A session's language servers: started on the first edit of their language, one per (server, root).

`after_edit` is what the edit tools' results gain; `ask` answers the LSP tool; `status_lines` is `/lsp`.
Documents are closed past `MAX_OPEN` (least recently used first), servers stop with the session.
"""

from __future__ import annotations

import collections
import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from tui.text.wording import plural

from .diagnostics import Diagnostic, report
from .servers import ServerSpec, project_root

#: documents kept open per session (Claude Code had to bound these: an open document costs the server memory)
MAX_OPEN = 20
#: seconds a server may take to answer `initialize` once its process started
START_TIMEOUT = 20.0
#: seconds the start of a server's process may take (imports, fork, exec: long only on a loaded machine)
SPAWN_TIMEOUT = 30.0
#: seconds the loop thread is given past a server's own `initialize` timeout before the caller stops waiting
LOOP_MARGIN = 5.0


@dataclass(frozen=True)
class LspSettings:
    """The `[lsp]` settings."""

    enabled: bool = True
    #: seconds an edit waits for fresh diagnostics once the server runs
    diagnostics_timeout: float = 3.0
    #: warnings too, not only errors
    warnings: bool = False
    max_diagnostics: int = 20
    #: seconds a server may take to answer `initialize` once started
    start_timeout: float = START_TIMEOUT


@dataclass
class EditReport:
    """What an edit's tool result gains, and what the UI shows under the tool block."""

    text: str
    path: str
    server: str
    errors: int
    warnings: int
    diagnostics: tuple[Diagnostic, ...]


class LspManager:
    """Every server of one session."""

    def __init__(
        self,
        specs: Sequence[ServerSpec],
        project_dir: str,
        settings: LspSettings | None = None,
        *,
        launch: Callable[[str], dict[str, Any]] | None = None,
        notify: Callable[[str], None] | None = None,
    ) -> None:
        self.specs = list(specs)
        self.project_dir = os.path.abspath(project_dir)
        self.settings = settings or LspSettings()
        self._launch = launch
        self._notify = notify
        self._loop: Any = None
        self._lock = threading.RLock()
        self.servers: dict[tuple[str, str], Any] = {}
        self.open: collections.OrderedDict[str, Any] = collections.OrderedDict()
        #: the last diagnostics of each file (absolute path), for `/lsp` and the status line
        self.last: dict[str, tuple[str, tuple[Diagnostic, ...]]] = {}
        self.closed = False

    # --- which server -------------------------------------------------------------------

    def spec_for(self, path: str) -> ServerSpec | None:
        if not self.settings.enabled:
            return None
        return next((spec for spec in self.specs if spec.serves(path)), None)

    def _server(self, spec: ServerSpec, path: str) -> Any:
        """The running server for `path` (started now if need be), or None when it failed."""
        from .connection import LspLoop, ServerConnection

        root = project_root(path, spec, self.project_dir)
        with self._lock:
            if self.closed:
                return None
            key = (spec.name, root)
            server = self.servers.get(key)
            if server is None:
                if self._loop is None:
                    self._loop = LspLoop()
                launcher = self._launch
                launch = (lambda: launcher(root)) if launcher is not None else None
                server = ServerConnection(spec, root, self._loop, launch=launch, on_exit=self._exited)
                self.servers[key] = server
                self._start(server)
                if server.problem:
                    self._tell(server.problem)
            return server if server.state == "ready" else None

    def _start(self, server: Any) -> None:
        """Start `server`: its process within SPAWN_TIMEOUT, then its answer to `initialize` within start_timeout.

        The two are timed apart: one cap over both once said "did not start" of a server that had started and
        not answered, when its start alone took the cap on a loaded machine.
        """
        name, limit = server.spec.name, self.settings.start_timeout
        future = self._loop.submit(server.start(limit))
        if not server.spawned.wait(SPAWN_TIMEOUT):
            future.cancel()
            server._fail(f"{name} did not start within {SPAWN_TIMEOUT:g} s")
            return
        try:
            future.result(limit + LOOP_MARGIN)
        except TimeoutError:
            future.cancel()
            server._fail(f"{name} did not answer `initialize` within {limit:g} s")

    def _exited(self, server: Any) -> None:
        self._tell(f"{server.problem}; edits go on without its diagnostics (/lsp).")

    def _tell(self, sentence: str) -> None:
        if self._notify is not None:
            self._notify(sentence)

    # --- edits ----------------------------------------------------------------------------

    def before_edit(self, path: str) -> str | None:
        """The file's text before an edit (when a server serves it), to tell new diagnostics from old."""
        if self.spec_for(path) is None:
            return None
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                return f.read()
        except OSError:
            return ""  # a new file: nothing was there

    def after_edit(self, path: str, before: str | None, shown_path: str) -> EditReport | None:
        """Sync the edited file and wait (up to the budget) for its fresh diagnostics; None when none apply."""
        spec = self.spec_for(path)
        if spec is None:
            return None
        server = self._server(spec, path)
        if server is None:
            return None
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
        except OSError:
            return None
        language = spec.extensions.get(os.path.splitext(path)[1].lower(), "plaintext")
        budget = self.settings.diagnostics_timeout
        old: list[Diagnostic] | None = None
        with self._lock:
            fresh = server.versions.get(_uri(path)) is None
            if fresh and before:  # first sight of the file: what the server says of the old text is the baseline
                old = self._diagnose(server, path, before, language, budget)
            elif not fresh:
                old = list(self.last.get(os.path.abspath(path), ("", ()))[1])
            new = self._diagnose(server, path, text, language, budget)
            self._touch(path, server)
        if new is None:
            return None
        self.last[os.path.abspath(path)] = (spec.name, tuple(new))
        s = self.settings
        text_out = report(shown_path, new, old, warnings=s.warnings, max_items=s.max_diagnostics, server=spec.name)
        errors = sum(1 for d in new if d.severity == "error")
        warnings = sum(1 for d in new if d.severity == "warning")
        return EditReport(text_out, shown_path, spec.name, errors, warnings, tuple(new))

    def _diagnose(self, server: Any, path: str, text: str, language: str, budget: float) -> list[Diagnostic] | None:
        async def both() -> list[Diagnostic] | None:
            uri, version, sent = await server.sync(path, text, language)
            return await server.diagnostics(uri, version, sent, budget)

        try:
            result: list[Diagnostic] | None = self._loop.run(both(), budget + 2)
            return result
        except Exception:  # noqa: BLE001 - a server that misbehaves costs the edit its diagnostics, nothing else
            return None

    def _touch(self, path: str, server: Any) -> None:
        """Mark `path` recently used; close the least recently used document past MAX_OPEN."""
        key = os.path.abspath(path)
        self.open[key] = server
        self.open.move_to_end(key)
        while len(self.open) > MAX_OPEN:
            old_path, old_server = self.open.popitem(last=False)
            try:
                self._loop.run(old_server.close_document(_uri(old_path)), 2.0)
            except Exception:  # noqa: BLE001 - closing is best effort
                pass

    # --- the LSP tool ------------------------------------------------------------------------

    def ask(self, method: str, path: str, params: Callable[[str], Any], timeout: float = 10.0) -> Any:
        """One request about `path` (opened first if need be); raises LookupError with a sentence when no server can."""
        spec = self.spec_for(path)
        if spec is None:
            raise LookupError(f"No language server serves {os.path.basename(path)} (see /lsp).")
        server = self._server(spec, path)
        if server is None:
            problem = next((s.problem for s in self.servers.values() if s.spec is spec and s.problem), None)
            raise LookupError(problem or f"{spec.name} is not running.")
        uri = _uri(path)
        with self._lock:
            if server.versions.get(uri) is None:
                try:
                    with open(path, encoding="utf-8", errors="replace") as f:
                        text = f.read()
                except OSError as exc:
                    raise LookupError(f"Cannot read {path}: {exc.strerror}.") from None
                language = spec.extensions.get(os.path.splitext(path)[1].lower(), "plaintext")
                self._loop.run(server.sync(path, text, language), 5.0)
            self._touch(path, server)
        try:
            return self._loop.run(server.request(method, params(uri), timeout), timeout + 1)
        except TimeoutError:
            raise LookupError(f"{spec.name} did not answer {method} within {timeout:g} s.") from None

    def any_server_for(self, path: str) -> bool:
        return self.spec_for(path) is not None

    # --- /lsp and the status line --------------------------------------------------------------

    def status_lines(self) -> list[str]:
        """`/lsp`: each server, its state, the files open and the last diagnostics."""
        if not self.specs:
            return ["No language server: none is configured ([lsp] settings, plugins' .lsp.json) or on PATH."]
        lines = []
        for spec in self.specs:
            started = [s for s in self.servers.values() if s.spec is spec]
            exts = " ".join(sorted(spec.extensions))
            where = f"{spec.command} {' '.join(spec.args)}".strip()
            if not started:
                lines.append(
                    f"{spec.name}: not started (starts on the first edit of {exts}) · {where} · from {spec.source}"
                )
            for server in started:
                state = server.problem or server.state
                files = [p for p, s in self.open.items() if s is server]
                lines.append(f"{spec.name}: {state} · {where} · root {server.root} · {len(files)} open")
                if server.stderr and server.state != "ready":
                    lines.append(f"  stderr: {server.stderr[-1]}")
        for path, (name, diags) in self.last.items():
            errors = sum(1 for d in diags if d.severity == "error")
            warnings = sum(1 for d in diags if d.severity == "warning")
            counts = f"{plural(errors, 'error')}, {plural(warnings, 'warning')}"
            lines.append(f"  {os.path.relpath(path, self.project_dir)} ({name}): {counts}")
            lines += [f"    {d.line_text(os.path.relpath(path, self.project_dir))}" for d in diags[:5]]
        return lines

    def error_count(self) -> int:
        """Errors in the files edited this session, as the servers last said."""
        return sum(1 for _, diags in self.last.values() for d in diags if d.severity == "error")

    def close(self) -> None:
        """Stop every server (their process groups too) and the loop."""
        with self._lock:
            self.closed = True
            servers = list(self.servers.values())
        for server in servers:
            try:
                self._loop.run(server.stop(), 3.0)
            except Exception:  # noqa: BLE001 - the process group is killed below either way
                pass
            server.kill()
        if self._loop is not None:
            self._loop.close()


def _uri(path: str) -> str:
    from .connection import _uri as uri

    return uri(path)
