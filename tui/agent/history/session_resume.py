"""Continue a saved session (resume.py loads it) in an AgentSession: history, usage, turns and transcript.

Resuming appends to the same file while holding an exclusive lock on it. When another
process holds the lock (the session is open elsewhere), the history is forked into a
new session file instead, so two instances never write one file.
"""

from __future__ import annotations

import datetime as _dt
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui.agent.cost.cost import CostLedger
from tui.agent.events import Notice

from .resume import LoadedSession, SessionLoadError, find_session, load_session, project_sessions_dir, sessions_base
from .session_ids import outside_store
from .transcript import lock_file, new_session_id

if TYPE_CHECKING:
    from tui.agent.session import AgentSession


def is_locked(path: Path) -> bool:
    """True when another open file (another process) holds the session's lock."""
    try:
        with open(path, "a", encoding="utf-8") as probe:
            return not lock_file(probe)
    except OSError:
        return False


def resume_into(session: AgentSession, target: str | Path, fork: bool = False) -> LoadedSession:
    """Make `session` continue a saved one: history, usage, turn count and transcript file.

    The file is forked into a new one when another process holds it, or (in -p, which
    cannot ask) when it is read-only; the app says so and offers /fork instead.
    """
    if session.running:
        raise RuntimeError("Cannot resume while a turn is running.")
    options = session.options
    path = find_session(options.project_dir, target, sessions_base(options))
    try:
        loaded = load_session(path)
    except OSError as exc:  # vanished, unreadable, a FIFO put in its place
        raise SessionLoadError(f"Could not load session {path.stem}: {exc.strerror or exc}.") from None
    session.close_transcript()  # (releases our own lock when resuming the current session)
    forked_from = loaded.session_id
    if fork:  # --fork-session: a new file with a copy of the history; the original stays as it was
        loaded.session_id = new_session_id()
        loaded.notes.append(f"Forked session {forked_from} into a new session, {loaded.session_id}.")
    elif is_locked(path):
        loaded.session_id = new_session_id()
        loaded.warnings.append(
            f"Session {forked_from} is open in another agent-tui process; continuing in a copy, {loaded.session_id}."
        )
    elif outside_store(path, project_sessions_dir(options)) is not None:  # never written: a new file in the store
        loaded.session_id = new_session_id()
        loaded.notes.append(
            f"{path} is not in the session store, so it stays as it is; continuing in {loaded.session_id}."
        )
    elif options.transcript and not options.interactive and not os.access(path, os.W_OK):
        loaded.session_id = new_session_id()
        loaded.warnings.append(
            f"The session file {path} is read-only; continuing in a new file, "
            f"{project_sessions_dir(options) / loaded.session_id}.jsonl."
        )
    if loaded.session_id == forked_from:
        forked_from = ""
    session.messages = list(loaded.messages)
    session._before_prompt = (len(session.messages), session.messages[-1] if session.messages else None)
    session.usage_totals = dict(loaded.usage)
    session.cost_usd = loaded.cost_usd
    session.turn_count = loaded.turns
    session.session_id = loaded.session_id
    session.subagent_links = list(loaded.subagents)
    session.pins = list(loaded.pins)
    session.compactions = list(loaded.compactions)
    session.costs = CostLedger()
    session.costs.restore(loaded.costs)
    with session.state.lock:
        session.state.read_hashes.clear()
        session.state.todos.clear()
    if getattr(session, "context", None) is not None:
        session.context.reset()
    said: list[Notice] = []
    listening = session.bus.subscribe(lambda e: said.append(e) if isinstance(e, Notice) else None, inline=True)
    try:
        for warning in loaded.warnings:
            session.publish(Notice(level="warning", text=warning))
        for note in loaded.notes:
            session.publish(Notice(level="info", text=note))
        _attach_transcript(session, path, loaded, forked_from)
    finally:
        listening.close()
    session.resume_notices = said  # for an app that starts after this (-c, -r ID)
    return loaded


def _resumed_record(session: AgentSession, forked_from: str) -> dict[str, Any]:
    return {
        "type": "resumed",
        "pid": os.getpid(),
        "at": _dt.datetime.now().isoformat(timespec="seconds"),
        "forked_from": forked_from or None,
        "turns": session.turn_count,
        "usage": dict(session.usage_totals),
        "cost_usd": session.cost_usd,
        "messages": len(session.messages),
    }


def write_fork(session: AgentSession, forked_from: str) -> Path:
    """Start a new file for `session` (its current id) holding its whole history; returns the path."""
    from .checkpoints import copy_manifest

    path = project_sessions_dir(session.options) / f"{session.session_id}.jsonl"
    copy_manifest(project_sessions_dir(session.options) / "checkpoints", forked_from, session.session_id)
    transcript = session.new_transcript(path)
    session.attach_transcript(transcript)
    transcript.fork_of(forked_from)
    for message in list(session.messages):
        transcript.message(message)
    for link in session.subagent_links:  # the subagents' own files stay where they are
        transcript.write(link)
    for pin in session.pins:
        transcript.write({"type": "pin", "text": pin})
    transcript.write(_resumed_record(session, forked_from))
    return path


def _attach_transcript(session: AgentSession, path: Path, loaded: LoadedSession, forked_from: str) -> None:
    if not session.options.transcript:
        return
    if forked_from:
        write_fork(session, forked_from)
        return
    transcript = session.new_transcript(path)
    transcript.images_written |= loaded.image_hashes
    session.attach_transcript(transcript, header=False)
    for message in loaded.repairs:
        transcript.message(message)
    transcript.write(_resumed_record(session, ""))
