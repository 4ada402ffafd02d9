"""Saved sessions of a project: list them, load one, and continue it in an AgentSession.

A session is its transcript (transcript.py). Loading replays the records that change the
API history, in file order: `message` appends, `merge_user` replaces the last user
message, `compaction` replaces the whole list. A half-written last line (a killed writer)
is skipped with a warning, and `tool_use` blocks left without results get "interrupted"
results so the next request is valid.

Continuing one in an AgentSession is `session_resume.py`.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui.agent.cost.pricing import USAGE_KEYS, add_usage, total_tokens
from tui.config.special_files import check_regular, open_regular, read_regular_bytes, special_kind
from tui.text.wording import plural

from .history_check import not_completed, sanitize_history
from .session_ids import id_problem, outside_store
from .transcript import project_slug as project_slug
from .transcript import sessions_folder
from .transcript_images import StoredImages, read_head

if TYPE_CHECKING:
    from tui.agent.options import AgentOptions

#: bytes read from the start (first prompt) and the end (totals) of a file when listing
HEAD_BYTES = 64 * 1024
TAIL_BYTES = 256 * 1024


class SessionNotFound(LookupError):
    """No saved session matches what the user asked for."""


class SessionLoadError(LookupError):
    """The session's file exists but could not be read; the text is the sentence to show."""


@dataclass
class SessionInfo:
    """One line of the session picker."""

    id: str
    path: Path
    started: str
    first_prompt: str
    turns: int
    tokens: int
    cost: float
    model: str
    modified: float = 0.0
    #: the id of the session this one was forked from ("" when it was not)
    forked_from: str = ""


@dataclass
class LoadedSession:
    """What a transcript holds: the API history (repaired) and the totals so far."""

    session_id: str
    path: Path
    messages: list[dict[str, Any]]
    usage: dict[str, int]
    cost_usd: float
    turns: int
    model: str
    warnings: list[str] = field(default_factory=list)
    #: messages added by the repair (interrupted tool results), already in `messages`
    repairs: list[dict[str, Any]] = field(default_factory=list)
    #: facts worth saying after resuming (why the last reply is cut short)
    notes: list[str] = field(default_factory=list)
    #: the `subagent` records linking each subagent's transcript (copied into a fork)
    subagents: list[dict[str, Any]] = field(default_factory=list)
    #: prompts pinned through compactions, and the cost ledger's entries (RequestCosted)
    pins: list[str] = field(default_factory=list)
    costs: list[dict[str, Any]] = field(default_factory=list)
    compactions: list[dict[str, Any]] = field(default_factory=list)
    #: the pictures the file holds (written once: a resumed writer refers to them)
    image_hashes: set[str] = field(default_factory=set)


def injected(text: str) -> bool:
    """Whether a user text block is one agent-tui added (a task notification, a reminder), not the user's words."""
    return text.startswith(("<task-notification>", "<system-reminder>"))


def sessions_base(options: AgentOptions) -> Path:
    """The folder that holds every project's sessions."""
    if options.sessions_dir:
        return Path(options.sessions_dir)
    from tui.config.settings import user_data_dir

    return user_data_dir() / "sessions"


def project_sessions_dir(options: AgentOptions) -> Path:
    return sessions_folder(sessions_base(options), Path(options.project_dir))


# --- listing ------------------------------------------------------------------------


def records_in(data: bytes, *, skip_first: bool = False) -> list[dict[str, Any]]:
    """The JSON records in a chunk of a file; broken lines (and a cut first line) are skipped."""
    lines = data.split(b"\n")
    if skip_first and lines:
        lines = lines[1:]
    out = []
    images = StoredImages(strict=False)
    for line in lines:
        if not line.strip():
            continue
        try:
            record = images.fill(line, json.loads(line))
        except (ValueError, RecursionError):  # RecursionError: a line nested thousands deep
            continue
        if isinstance(record, dict):
            out.append(record)
    return out


def _prompt_text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    return " ".join(b.get("text", "") for b in content or () if isinstance(b, dict) and b.get("type") == "text").strip()


def _totals(record: dict[str, Any], turns: int, tokens: int, cost: float) -> tuple[int, int, float]:
    """The session's totals after one record (a finished turn or a resume says them)."""
    event = record.get("event") if record.get("type") == "event" else None
    if event and event.get("type") == "TurnFinished":
        return (
            int(event.get("turn_id") or 0),
            total_tokens(event.get("session_usage") or {}),
            float(event.get("session_cost_usd") or 0.0),
        )
    if record.get("type") == "resumed":
        return (
            int(record.get("turns") or turns),
            total_tokens(record.get("usage") or {}),
            float(record.get("cost_usd") or 0.0),
        )
    return turns, tokens, cost


def session_info(path: Path) -> SessionInfo | None:
    """Picker facts of one file from its head and tail only; None when it holds no conversation."""
    try:
        fd = open_regular(path)  # never blocks on a FIFO
        with os.fdopen(fd, "rb") as f:
            size = os.fstat(fd).st_size
            mtime = os.fstat(fd).st_mtime
            head = read_head(f, HEAD_BYTES)  # past any picture's bytes (transcript_images.py)
            tail = head
            if size > HEAD_BYTES:
                f.seek(max(size - TAIL_BYTES, 0))
                tail = f.read()
    except OSError:
        return None
    head_records = records_in(head)
    header = next((r for r in head_records if r.get("type") == "session"), {})
    first_prompt = ""
    for record in head_records:
        message = record.get("message")
        if record.get("type") == "message" and isinstance(message, dict) and message.get("role") == "user":
            with contextlib.suppress(TypeError, AttributeError):
                first_prompt = _prompt_text(message)
            if first_prompt:
                break
    turns, tokens, cost = 0, 0, 0.0
    for record in records_in(tail, skip_first=size > HEAD_BYTES):
        with contextlib.suppress(TypeError, ValueError, AttributeError):  # a damaged record counts for nothing
            turns, tokens, cost = _totals(record, turns, tokens, cost)
    if not first_prompt and not any(r.get("type") == "message" for r in head_records):
        return None
    created = header.get("created") or _dt.datetime.fromtimestamp(mtime).isoformat(timespec="seconds")
    return SessionInfo(
        id=str(header.get("session_id") or path.stem),
        path=path,
        started=str(created),
        first_prompt=first_prompt,
        turns=turns,
        tokens=tokens,
        cost=cost,
        model=str(header.get("model", "")),
        modified=mtime,
        forked_from=str(header.get("forked_from") or ""),
    )


def list_sessions(project_dir: Path, base: Path | None = None, skipped: list[str] | None = None) -> list[SessionInfo]:
    """This project's saved sessions, most recently used first; `skipped` gets a sentence per non-file."""
    if base is None:
        from tui.config.settings import user_data_dir

        base = user_data_dir() / "sessions"
    folder = sessions_folder(Path(base), Path(project_dir))
    try:
        paths = [p for p in folder.iterdir() if p.suffix == ".jsonl"]
    except OSError:
        return []
    regular = []
    for path in paths:
        try:
            kind = (
                "a link, which agent-tui does not follow" if path.is_symlink() else special_kind(os.stat(path).st_mode)
            )
        except OSError:
            continue
        if kind is None:
            regular.append(path)
        elif skipped is not None:
            skipped.append(f"Skipped {path.name} in the sessions folder: it is {kind}, not a session file.")
    infos = [info for info in map(session_info, regular) if info is not None]
    infos.sort(key=lambda i: i.modified, reverse=True)
    return infos


def find_session(project_dir: Path, target: str | Path, base: Path | None = None) -> Path:
    """The file of a session given its id or a unique part of it (a str), or a path agent-tui found itself (a Path).

    A str is only ever an id (session_ids.py): never a path, and only a file right in the store.
    """
    if isinstance(target, Path):  # -c, the picker, replay: a file agent-tui listed (or the user gave replay)
        try:
            check_regular(target.expanduser())
        except OSError as exc:
            raise SessionNotFound(str(exc)) from None
        return target.expanduser().resolve()
    if (problem := id_problem(target)) is not None:
        raise SessionNotFound(problem)
    sessions = list_sessions(project_dir, base)
    found = [s for s in sessions if s.id == target] or [
        s for s in sessions if s.id.startswith(target) or s.id.endswith(target)
    ]
    if len(found) > 1:
        raise SessionNotFound(f"{target!r} matches {plural(len(found), 'session')}; give more of the id.")
    if not found:
        raise SessionNotFound(f"No saved session {target!r} in this project; `agent-tui -r` lists them.")
    if (problem := outside_store(found[0].path, found[0].path.parent)) is not None:
        raise SessionNotFound(problem)
    return found[0].path


# --- loading ------------------------------------------------------------------------


def interrupted_results(messages: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The tool_result message owed by a last assistant message whose tool calls never got results."""
    if not messages or messages[-1].get("role") != "assistant":
        return None
    pending = [b for b in messages[-1].get("content", ()) if isinstance(b, dict) and b.get("type") == "tool_use"]
    if not pending:
        return None
    return {"role": "user", "content": not_completed([b["id"] for b in pending])}


class _Replay:
    """The state a transcript's records build up, one record at a time."""

    def __init__(self) -> None:
        self.messages: list[Any] = []
        self.usage: dict[str, int] = {}
        self.cost = 0.0
        self.turns = 0
        self.header: dict[str, Any] = {}
        self.open_turn = False  # a TurnStarted without its TurnFinished: the process stopped mid-turn
        self.last_stop: dict[str, Any] = {}
        self.subagents: list[dict[str, Any]] = []
        self.pins: list[str] = []
        self.compactions: list[dict[str, Any]] = []
        self.costs: list[dict[str, Any]] = []  # RequestCosted entries, for /cost after resuming

    def apply(self, record: dict[str, Any]) -> None:
        """Replay one record; TypeError, ValueError, KeyError or AttributeError when it is malformed."""
        kind = record.get("type")
        if kind == "session" and not self.header:
            self.header = dict(record)
        elif kind == "message":
            self.messages.append(record["message"])
        elif (
            kind == "merge_user"
            and self.messages
            and isinstance(self.messages[-1], dict)
            and self.messages[-1].get("role") == "user"
        ):
            self.messages[-1] = record["message"]
        elif kind in ("compaction", "history"):  # the whole history replaced (a summary, a prompt taken back)
            if not isinstance(record["messages"], list):
                raise TypeError("compaction without a message list")
            if kind == "compaction":
                self.compaction(record)
            self.messages = list(record["messages"])
        elif kind == "resumed":
            usage = {k: int((record.get("usage") or {}).get(k) or 0) for k in USAGE_KEYS}
            cost, turns = float(record.get("cost_usd") or 0.0), int(record.get("turns") or 0)
            self.usage, self.cost, self.turns = usage, cost, max(self.turns, turns)
        elif kind == "event":
            self.event(record["event"])
        elif kind == "subagent":
            self.subagents.append(dict(record))
        elif kind == "pin" and isinstance(record.get("text"), str) and record["text"] not in self.pins:
            self.pins.append(record["text"])
        elif kind == "unpin" and record.get("text") in self.pins:
            self.pins.remove(record["text"])

    def compaction(self, record: dict[str, Any]) -> None:
        """Keep what a compaction dropped beside its summary (for /context after resuming)."""
        from tui.agent.context.compaction_plan import dropped_excerpts
        from tui.agent.context.context import estimate_tokens

        dropped = int(record.get("dropped_messages") or 0)
        summary = str(record.get("summary", ""))
        self.compactions.append(
            {
                "at": 0.0,
                "automatic": bool(record.get("automatic")),
                "summary": summary,
                "focus": str(record.get("focus", "")),
                "plan": dict(record.get("plan") or {}),
                "dropped": dropped_excerpts(self.messages[:dropped]),
                "summary_tokens": estimate_tokens(summary),
            }
        )

    def event(self, event: dict[str, Any]) -> None:
        etype = event.get("type")
        if etype == "ResponseFinished":
            usage = dict(self.usage)
            add_usage(usage, event.get("usage") or {})
            self.cost += float(event.get("cost_usd") or 0.0)
            self.usage = usage
        elif etype in ("TurnStarted", "TurnFinished"):
            self.turns = max(self.turns, int(event.get("turn_id") or 0))
            self.open_turn = etype == "TurnStarted"
        elif etype == "LoopStopped":
            self.last_stop = event
        elif etype == "RequestCosted" and isinstance(event.get("cost"), dict):
            self.costs.append(event["cost"])

    def cut_note(self) -> str | None:
        """Why the last reply is cut short, when it is."""
        if self.open_turn:
            return (
                "The last turn did not finish: agent-tui stopped while it ran (its unfinished reply was not "
                "saved, and tool calls left open were answered as not completed)."
            )
        reason = self.last_stop.get("reason")
        if reason and reason not in ("end_turn", "stop_sequence") and self.last_stop.get("detail"):
            return f"The last turn ended early ({reason}): {self.last_stop['detail']}"
        return None


def load_session(path: Path) -> LoadedSession:
    """Replay a transcript into the API history it describes, plus usage and turn count.

    Damaged records (a cut or invalid line, wrong types, a message the API would refuse) are
    skipped and counted in one warning; the history that results is always a valid request.
    """
    path = Path(path)
    raw = read_regular_bytes(path)  # SpecialFileError (an OSError) for a FIFO: never blocks
    replay = _Replay()
    images = StoredImages()
    damaged = 0
    cut_last = False
    lines = raw.split(b"\n")
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = images.fill(line, json.loads(line))
            if not isinstance(record, dict):
                raise TypeError("not an object")
            replay.apply(record)
        except (ValueError, TypeError, KeyError, AttributeError, RecursionError) as exc:
            damaged += 1
            cut_last = cut_last or (number >= len(lines) - 1 and isinstance(exc, ValueError))
    messages, dropped = sanitize_history(replay.messages)
    damaged += dropped
    warnings = []
    if damaged:
        why = " (its last line was cut off: the writer stopped mid-record)" if cut_last else ""
        warnings.append(
            f"Skipped {damaged} damaged record{'s' if damaged != 1 else ''} of {path.name}{why}; the rest was loaded."
        )
    repairs = []
    owed = interrupted_results(messages)
    if owed is not None:
        messages.append(owed)
        repairs.append(owed)
    turns = replay.turns or sum(1 for m in messages if m.get("role") == "user" and _prompt_text(m))
    note = replay.cut_note()
    header = replay.header
    return LoadedSession(
        session_id=str(header.get("session_id") or path.stem),
        path=path,
        messages=messages,
        usage=replay.usage,
        cost_usd=replay.cost,
        turns=turns,
        model=str(header.get("model", "")),
        warnings=warnings,
        repairs=repairs,
        notes=[note] if note else [],
        subagents=replay.subagents,
        pins=replay.pins,
        costs=replay.costs,
        compactions=replay.compactions,
        image_hashes=set(images.data),
    )
