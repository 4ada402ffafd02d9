"""The one interface every tool implements, and what a tool gets and gives back.

A tool never imports Textual and never touches the bus directly: it reports live output
through `ToolContext.emit_output` and returns a `ToolResult`. Errors the model can act on
are raised as `ToolError` (they become `is_error: true` results); errors no retry can
mend (the project directory vanished, the disk is full) are `FatalToolError` and stop
the loop.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Protocol

from tui.tools.names import parse_name, show_name
from tui.tools.tasks import TaskRegistry


class ToolError(Exception):
    """A failure the model can act on; the message goes back as an is_error result."""


class FatalToolError(ToolError):
    """A failure no retry can mend; the loop stops instead of going back to the model."""


class ToolInterrupted(Exception):
    """The user interrupted the turn while the tool ran."""


@dataclass
class ToolResult:
    """What a tool returns. `content` is a string or a list of content blocks (text/image)."""

    content: str | list[dict[str, Any]]
    is_error: bool = False
    fatal: bool = False
    # extra facts for the UI and undo (e.g. {"diff": ..., "path": ...}); never sent to the API
    meta: dict[str, Any] = field(default_factory=dict)

    def text(self) -> str:
        """The result as plain text (image blocks become a placeholder)."""
        if isinstance(self.content, str):
            return self.content
        parts = []
        for block in self.content:
            if block.get("type") == "text":
                parts.append(block.get("text", ""))
            else:
                parts.append(f"[{block.get('type')}]")
        return "\n".join(parts)


class EditorFiles(Protocol):
    """An editor's view of text files (an ACP client's `fs/*`): Read, Edit and Write go through it when set."""

    def read(self, path: Path, cancel: threading.Event) -> bytes | None:
        """The file as the editor holds it (unsaved changes included); None: read the disk."""
        ...

    def write(self, path: Path, previous: bytes | None, data: bytes, cancel: threading.Event) -> bool:
        """Write `data` through the editor (it sees every change); False: the caller writes the disk."""
        ...


class FileCheckpoint(Protocol):
    """Keeps a file's content before it is written (the session's checkpoints)."""

    def before_write(self, path: str | Path, previous: bytes | None, data: bytes | None) -> None: ...

    def wrote(self, path: str | Path) -> None: ...

    def write_failed(self) -> None: ...


@dataclass
class SessionState:
    """State that lives for one session and is shared by the tools.

    `read_hashes` maps an absolute path to the content hash of what Read last returned
    (the freshness guard); `bash_cwd` is where the next Bash command starts; `todos` is
    the model's plan; `checkpoint` (the session's checkpoints) keeps each file's content
    before an Edit/Write changes it, for /undo and /rewind.
    """

    project_dir: Path
    bash_cwd: Path | None = None
    read_hashes: dict[str, str] = field(default_factory=dict)
    todos: list[dict[str, Any]] = field(default_factory=list)
    checkpoint: FileCheckpoint | None = None
    turn_id: int = 0
    #: background tasks (Bash `run_in_background`, background agents)
    tasks: TaskRegistry = field(default_factory=TaskRegistry)
    #: asks the session's small fast model one question and returns its text (WebFetch); None offline
    side_query: Callable[[str], str] | None = None
    #: asks the person at the terminal (kind, payload, tool_use_id, cancel) -> answer; None when no one can be asked
    ask_user: Callable[[str, dict[str, Any], str, threading.Event], dict[str, Any]] | None = None
    #: an editor that holds the files (an ACP client offering `fs/*`); None: the disk only
    editor: EditorFiles | None = None
    lock: threading.RLock = field(default_factory=threading.RLock)
    #: working directories added with --add-dir or /add-dir: writable like the project (Bash's sandbox included)
    extra_dirs: list[Path] = field(default_factory=list)


@dataclass
class ToolContext:
    """What one tool call gets: where it runs, shared state, and its output/cancel channels."""

    project_dir: Path
    state: SessionState
    tool_use_id: str = ""
    cancel: threading.Event = field(default_factory=threading.Event)
    emit_output: Callable[[str, str], None] = field(default=lambda chunk, stream="stdout": None)
    #: seconds a Read, Grep or Glob may run before it stops and says what it cut
    time_limit: float = 60.0
    #: paths a Grep or Glob lists at most before it stops (a walk of `/` must end)
    walk_limit: int = 200_000

    def resolve(self, path: str) -> Path:
        """An absolute path for `path` (relative to the project, `$'…'` quoting as `show_name` writes it)."""
        p = Path(os.path.expanduser(parse_name(path)))
        if not p.is_absolute():
            p = self.project_dir / p
        return Path(os.path.normpath(p))

    def display_path(self, path: str | Path) -> str:
        """`path` relative to the project when inside it, else absolute; odd names quoted (`show_name`)."""
        p = Path(path)
        try:
            return show_name(str(p.relative_to(self.project_dir)) or ".")
        except ValueError:
            return show_name(str(p))


class Tool:
    """Base class of every tool. Subclasses set the class attributes and implement `run`."""

    name: ClassVar[str]
    description: ClassVar[str]
    input_schema: ClassVar[dict[str, Any]]
    #: True for tools that never change anything (Read, Glob, Grep)
    read_only: ClassVar[bool] = False
    #: "edit" for tools that write files, "exec" for tools that run commands, "read" otherwise
    kind: ClassVar[str] = "read"

    def definition(self) -> dict[str, Any]:
        """The `tools[]` entry sent to the API."""
        return {"name": self.name, "description": self.description, "input_schema": self.input_schema}

    def call_schema(self) -> dict[str, Any]:
        """The schema a call's input is checked against: the one `definition()` sends."""
        return self.input_schema

    def is_concurrency_safe(self, tool_input: dict[str, Any]) -> bool:
        """Whether this call may run in parallel with other concurrency-safe calls."""
        return self.read_only

    def permission_target(self, tool_input: dict[str, Any], ctx: ToolContext) -> str | None:
        """What permission rules match on: the path for file tools, the command for Bash."""
        return None

    def label(self, tool_input: dict[str, Any], ctx: ToolContext) -> str:
        """A short label for the activity panel, e.g. "Read src/app.py"."""
        return self.name

    def preview(self, tool_input: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        """What the permission dialog shows; computed without changing anything.

        Returns {"kind": "diff", "path": ..., "text": unified diff} for edits,
        {"kind": "command", "command": ..., "cwd": ...} for commands,
        {"kind": "text", "text": ...} otherwise.
        """
        import json

        return {"kind": "text", "text": json.dumps(tool_input, indent=2)}

    def check_input(self, tool_input: dict[str, Any], ctx: ToolContext) -> None:
        """Raise ToolError when the call would fail for sure (file unread, text not found, unknown name).

        The dispatcher calls this after the schema check and before the hooks and the permission gate, so
        a call that cannot succeed is refused at once and never asks the user first. Changes nothing.
        """

    def run(self, tool_input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        raise NotImplementedError
