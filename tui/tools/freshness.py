"""The freshness guard: Edit/Write only touch files whose content the model has seen.

Read records a content hash per absolute path in `SessionState.read_hashes`; Edit and
Write compare it with the bytes on disk (hashes, never mtimes, so a linter touching a
file without changing it is no problem). `FileWatcher` reports files the agent read that
change on disk outside the agent.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path

from tui.tools.base import SessionState, ToolError
from tui.tools.fileio import hash_bytes, hash_file


def record_hash(state: SessionState, path: Path | str, digest: str) -> None:
    """Remember `digest` as the content the model knows for `path`."""
    with state.lock:
        state.read_hashes[str(path)] = digest


def forget_read(state: SessionState, path: Path | str) -> None:
    """Drop what the session knows about `path`."""
    with state.lock:
        state.read_hashes.pop(str(path), None)


def check_fresh(state: SessionState, path: Path, current: bytes, display: str, *, unique_match: bool = False) -> None:
    """Refuse a write to an existing file the model never read or that changed since it did.

    A changed file is still allowed when `unique_match` is true: an Edit whose old_string
    matches the current content exactly once cannot clobber what the model has not seen.
    """
    with state.lock:
        recorded = state.read_hashes.get(str(path))
    if recorded is None:
        raise ToolError(f"{display} has not been read yet in this session; Read it first, then try again.")
    if recorded != hash_bytes(current) and not unique_match:
        raise ToolError(
            f"{display} has been modified since you last read it (by the user or another program); "
            "Read it again, then retry."
        )


class FileWatcher:
    """Watches the folders of the files the agent read and reports outside changes.

    `on_change(path)` is called (from the watcher thread) when a file the agent read now
    holds content different from what the session recorded. The record is not refreshed:
    the model must Read the file again. Each changed version is reported once.
    """

    def __init__(self, state: SessionState, on_change: Callable[[str], None], *, debounce_ms: int = 50) -> None:
        self.state = state
        self.on_change = on_change
        self.debounce_ms = debounce_ms
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._reported: dict[str, str | None] = {}
        #: set once the folders of the read files are being watched (tests wait on it)
        self.ready = threading.Event()

    def start(self) -> None:
        """Start watching on a daemon thread (no-op when already running)."""
        if self._thread and self._thread.is_alive():
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="agent-tui-file-watcher", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop watching and wait for the thread to end."""
        self._stop.set()
        if self._thread:
            self._thread.join(timeout=2)
            self._thread = None

    def _read_paths(self) -> set[str]:
        with self.state.lock:
            return set(self.state.read_hashes)

    def _folders(self) -> frozenset[str]:
        return frozenset(d for d in {os.path.dirname(p) for p in self._read_paths()} if os.path.isdir(d))

    def _run(self) -> None:
        from watchfiles import watch

        while not self._stop.is_set():
            folders = self._folders()
            if not folders:
                self._stop.wait(0.1)
                continue
            try:
                for changes in watch(
                    *sorted(folders),
                    watch_filter=lambda _change, path: path in self.state.read_hashes,
                    debounce=self.debounce_ms,
                    step=20,
                    stop_event=self._stop,
                    rust_timeout=200,
                    yield_on_timeout=True,
                    recursive=False,
                    raise_interrupt=False,
                ):
                    self.ready.set()
                    if changes:
                        self.check({path for _change, path in changes})
                    if self._folders() != folders:
                        break  # a file in a new folder was read: watch again with it
            except Exception:  # a watched folder vanished or the backend failed: retry shortly
                self._stop.wait(0.2)

    def check(self, paths: set[str]) -> None:
        """Report each of `paths` whose content differs from the recorded hash."""
        for path in sorted(paths):
            with self.state.lock:
                recorded = self.state.read_hashes.get(path)
            if recorded is None:
                continue
            current = hash_file(Path(path))
            if current == recorded:
                self._reported.pop(path, None)
                continue
            if path in self._reported and self._reported[path] == current:
                continue
            self._reported[path] = current
            try:
                self.on_change(path)
            except Exception:  # a failing subscriber must not kill the watcher
                pass
