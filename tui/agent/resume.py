"""Saved sessions of a project: list them, load one, and continue it in an AgentSession.

A session is its transcript (transcript.py). Loading replays the records that change the
API history, in file order: `message` appends, `merge_user` replaces the last user
message, `compaction` replaces the whole list. A half-written last line (a killed writer)
is skipped with a warning, and `tool_use` blocks left without results get "interrupted"
results so the next request is valid.

Resuming appends to the same file while holding an exclusive lock on it. When another
process holds the lock (the session is open elsewhere), the history is forked into a
new session file instead, so two instances never write one file.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .dispatch import INTERRUPTED_TEXT
from .events import Notice
from .pricing import USAGE_KEYS, add_usage, total_tokens
from .transcript import Transcript, lock_file, new_session_id, sessions_folder

if TYPE_CHECKING:
    from .options import AgentOptions
    from .session import AgentSession

#: bytes read from the start (first prompt) and the end (totals) of a file when listing
HEAD_BYTES = 64 * 1024
TAIL_BYTES = 256 * 1024


class SessionNotFound(LookupError):
    """No saved session matches what the user asked for."""


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
    for line in lines:
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict):
            out.append(record)
    return out


def _prompt_text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    return " ".join(b.get("text", "") for b in content or () if isinstance(b, dict) and b.get("type") == "text").strip()


def session_info(path: Path) -> SessionInfo | None:
    """Picker facts of one file from its head and tail only; None when it holds no conversation."""
    try:
        size = path.stat().st_size
        mtime = path.stat().st_mtime
        with open(path, "rb") as f:
            head = f.read(HEAD_BYTES)
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
        if record.get("type") == "message" and record.get("message", {}).get("role") == "user":
            first_prompt = _prompt_text(record["message"])
            if first_prompt:
                break
    turns, tokens, cost = 0, 0, 0.0
    for record in records_in(tail, skip_first=size > HEAD_BYTES):
        event = record.get("event") if record.get("type") == "event" else None
        if event and event.get("type") == "TurnFinished":
            turns = int(event.get("turn_id") or 0)
            tokens = total_tokens(event.get("session_usage") or {})
            cost = float(event.get("session_cost_usd") or 0.0)
        elif record.get("type") == "resumed":
            turns = int(record.get("turns") or turns)
            tokens = total_tokens(record.get("usage") or {})
            cost = float(record.get("cost_usd") or 0.0)
    if not first_prompt and not any(r.get("type") == "message" for r in head_records):
        return None
    created = header.get("created") or _dt.datetime.fromtimestamp(mtime).isoformat(timespec="seconds")
    return SessionInfo(
        id=header.get("session_id") or path.stem, path=path, started=created, first_prompt=first_prompt,
        turns=turns, tokens=tokens, cost=cost, model=header.get("model", ""), modified=mtime,
    )


def list_sessions(project_dir: Path, base: Path | None = None) -> list[SessionInfo]:
    """This project's saved sessions, most recently used first."""
    if base is None:
        from tui.config.settings import user_data_dir

        base = user_data_dir() / "sessions"
    folder = sessions_folder(Path(base), Path(project_dir))
    try:
        paths = [p for p in folder.iterdir() if p.suffix == ".jsonl"]
    except OSError:
        return []
    infos = [info for info in map(session_info, paths) if info is not None]
    infos.sort(key=lambda i: i.modified, reverse=True)
    return infos


def find_session(project_dir: Path, target: str | Path, base: Path | None = None) -> Path:
    """The file of a session given its id, a unique id prefix, or a path."""
    as_path = Path(target).expanduser()
    if str(target).endswith(".jsonl") and as_path.is_file():
        return as_path.resolve()
    sessions = list_sessions(project_dir, base)
    exact = [s for s in sessions if s.id == str(target)]
    if exact:
        return exact[0].path
    prefixed = [s for s in sessions if s.id.startswith(str(target)) or s.id.endswith(str(target))]
    if len(prefixed) == 1:
        return prefixed[0].path
    if len(prefixed) > 1:
        raise SessionNotFound(f"{target!r} matches {len(prefixed)} sessions; give more of the id.")
    raise SessionNotFound(f"No saved session {target!r} in this project; `agent-tui -r` lists them.")


# --- loading ------------------------------------------------------------------------


def interrupted_results(messages: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The tool_result message owed by a last assistant message whose tool calls never got results."""
    if not messages or messages[-1].get("role") != "assistant":
        return None
    pending = [b for b in messages[-1].get("content", ()) if isinstance(b, dict) and b.get("type") == "tool_use"]
    if not pending:
        return None
    return {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": b["id"], "content": INTERRUPTED_TEXT, "is_error": True} for b in pending
    ]}


def load_session(path: Path) -> LoadedSession:
    """Replay a transcript into the API history it describes, plus usage and turn count."""
    path = Path(path)
    raw = path.read_bytes()
    warnings: list[str] = []
    messages: list[dict[str, Any]] = []
    usage: dict[str, int] = {}
    cost = 0.0
    turns = 0
    header: dict[str, Any] = {}
    lines = raw.split(b"\n")
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            kind = record.get("type")
        except (ValueError, AttributeError):
            where = "its last line" if number >= len(lines) - 1 else f"line {number}"
            warnings.append(f"Skipped {where} of {path.name}: it was cut off (the writer stopped mid-record).")
            continue
        if kind == "session" and not header:
            header = record
        elif kind == "message":
            messages.append(record["message"])
        elif kind == "merge_user" and messages and messages[-1].get("role") == "user":
            messages[-1] = record["message"]
        elif kind == "compaction":
            messages = list(record["messages"])
        elif kind == "resumed":
            usage = {k: int((record.get("usage") or {}).get(k) or 0) for k in USAGE_KEYS}
            cost = float(record.get("cost_usd") or 0.0)
            turns = max(turns, int(record.get("turns") or 0))
        elif kind == "event":
            event = record.get("event") or {}
            etype = event.get("type")
            if etype == "ResponseFinished":
                add_usage(usage, event.get("usage") or {})
                cost += float(event.get("cost_usd") or 0.0)
            elif etype in ("TurnStarted", "TurnFinished"):
                turns = max(turns, int(event.get("turn_id") or 0))
    repairs = []
    owed = interrupted_results(messages)
    if owed is not None:
        messages.append(owed)
        repairs.append(owed)
    if not turns:  # no turn events survived: count the prompts
        turns = sum(1 for m in messages if m.get("role") == "user" and _prompt_text(m))
    return LoadedSession(
        session_id=header.get("session_id") or path.stem, path=path, messages=messages, usage=usage,
        cost_usd=cost, turns=turns, model=header.get("model", ""), warnings=warnings, repairs=repairs,
    )


def is_locked(path: Path) -> bool:
    """True when another open file (another process) holds the session's lock."""
    try:
        with open(path, "a", encoding="utf-8") as probe:
            return not lock_file(probe)
    except OSError:
        return False


# --- continuing ---------------------------------------------------------------------


def resume_into(session: AgentSession, target: str | Path) -> LoadedSession:
    """Make `session` continue a saved one: history, usage, turn count and transcript file."""
    if session.running:
        raise RuntimeError("Cannot resume while a turn is running.")
    options = session.options
    path = find_session(options.project_dir, target, sessions_base(options))
    loaded = load_session(path)
    session.close_transcript()  # (releases our own lock when resuming the current session)
    forked_from = ""
    if is_locked(path):
        forked_from = loaded.session_id
        loaded.session_id = new_session_id()
        path = project_sessions_dir(options) / f"{loaded.session_id}.jsonl"
    session.messages = list(loaded.messages)
    session.usage_totals = dict(loaded.usage)
    session.cost_usd = loaded.cost_usd
    session.turn_count = loaded.turns
    session.session_id = loaded.session_id
    with session.state.lock:
        session.state.read_hashes.clear()
        session.state.file_backups.clear()
        session.state.todos.clear()
    if getattr(session, "context", None) is not None:
        session.context.reset()
    _attach_transcript(session, path, loaded, forked_from)
    for warning in loaded.warnings:
        session.publish(Notice(level="warning", text=warning))
    if forked_from:
        session.publish(Notice(level="warning", text=(
            f"Session {forked_from} is open in another agent-tui process; continuing in a copy, {loaded.session_id}.")))
    return loaded


def _attach_transcript(session: AgentSession, path: Path, loaded: LoadedSession, forked_from: str) -> None:
    if not session.options.transcript:
        return
    transcript = Transcript(path, on_error=lambda msg: session.publish(Notice(level="warning", text=msg)))
    session.transcript = transcript
    if forked_from:
        transcript.header(loaded.session_id, session.options.project_dir, session.options.model)
        for message in loaded.messages:
            transcript.message(message)
    else:
        for message in loaded.repairs:
            transcript.message(message)
    transcript.write({
        "type": "resumed", "pid": os.getpid(), "at": _dt.datetime.now().isoformat(timespec="seconds"),
        "forked_from": forked_from or None, "turns": loaded.turns, "usage": dict(loaded.usage),
        "cost_usd": loaded.cost_usd, "messages": len(loaded.messages),
    })
    session._transcript_sub = session.bus.subscribe(transcript.event, name="transcript")
