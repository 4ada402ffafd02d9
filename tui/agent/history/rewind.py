"""/rewind: go back to an earlier prompt (or a branch left by a rewind), in the code, the conversation or both.

The files at a point of the change log are, for every path changed after it, the `before`
of its first change after it. Restoring writes those bytes and modes (deleting files that
did not exist), logging each write as a change of its own, so a rewind can itself be
rewound. A file whose content differs from what agent-tui last left there was changed
outside agent-tui: it is reported as a conflict and only overwritten when the user says so.
Leaving a conversation keeps it as a branch (its messages as a blob) to come back to.
"""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from tui.config.special_files import read_regular_bytes
from tui.text.wording import plural

from .blobstore import BlobError, blob_hash
from .checkpoint_records import UNKNOWN
from .checkpoints import Branch, Change, Checkpoints, PromptPoint, file_mode
from .restore_paths import did, locate, protected_places, remove, write_back

if TYPE_CHECKING:
    from tui.agent.session import AgentSession

Mode = Literal["both", "conversation", "code"]
#: files larger than this get no +/- line counts in the list
COUNT_LIMIT = 1024 * 1024


@dataclass
class FileStep:
    """One file to put back as it was at the chosen point."""

    path: str
    target: str | None  # blob name, None = absent, "?" = unknown
    mode: int | None
    current: bytes | None
    expected: tuple[str | None, ...]
    data: bytes | None = None
    problem: str = ""
    #: the real file behind the path when its checkpoint was taken through a link
    real: str | None = None
    #: the path is now a symbolic link to this, made since: restoring replaces the link itself
    link: str = ""
    #: why restoring may not write where the path now leads (restore_paths.py)
    blocked: str = ""

    def shown(self, project_dir: Path) -> str:
        """The path as the user reads it: relative to the project when inside it."""
        return display(self.path, project_dir)

    @property
    def conflict(self) -> bool:
        """Changed outside agent-tui since it last wrote the file (and not already as wanted)."""
        if self.link:
            return True
        now = None if self.current is None else blob_hash(self.current)
        return now != self.target and now not in self.expected and UNKNOWN not in self.expected

    @property
    def needed(self) -> bool:
        if self.problem or self.blocked or self.link:
            return True
        now = None if self.current is None else blob_hash(self.current)
        return now != self.target or (
            self.mode is not None and self.current is not None and file_mode(self.path) != self.mode
        )


@dataclass
class RewindEntry:
    """One line of the rewind list: a prompt, or a branch to return to."""

    label: str
    ts: str
    point: PromptPoint | Branch | None
    msg: int | None  # the conversation's length at this point (None: a branch)
    pos: int | None  # the change log's position (None: no checkpoints: conversation only)
    files: list[tuple[str, int | None, int | None]] = field(default_factory=list)
    prompt: str = ""

    @property
    def is_branch(self) -> bool:
        return isinstance(self.point, Branch)


@dataclass
class RewindResult:
    lines: list[str]
    prompt: str = ""
    unrestored: list[str] = field(default_factory=list)


def _read(path: str) -> bytes | None:
    try:
        return read_regular_bytes(path)
    except OSError:
        return None


def display(path: str, project_dir: Path) -> str:
    try:
        return os.path.relpath(path, project_dir) if Path(path).is_relative_to(project_dir) else path
    except ValueError:
        return path


# --- planning ------------------------------------------------------------------------------


def code_steps(cps: Checkpoints, pos: int) -> list[FileStep]:
    """What each file changed after log position `pos` must become, read from the store."""
    first: dict[str, Change] = {}
    last: dict[str, Change] = {}
    with cps.lock:
        changes = cps.changes[pos:]
    for change in changes:
        first.setdefault(change.path, change)
        last[change.path] = change
    steps = []
    protected = protected_places(cps.project_dir)
    for path, change in first.items():
        end = last[path]
        where = locate(path, change.real, cps.project_dir, protected)
        current = None if where.link or where.problem else _read(where.dest)
        step = FileStep(
            path,
            change.before,
            change.mode_before,
            current,
            (end.after, end.before),
            real=change.real,
            link=where.link,
            blocked=where.problem,
        )
        if change.before == UNKNOWN:
            step.problem = "its content before Bash changed it was not recorded"
        elif change.before is not None:
            try:
                step.data = cps.blobs.get(change.before)
            except BlobError as exc:
                step.problem = str(exc)
        steps.append(step)
    return [s for s in steps if s.needed]


def _counts(old: bytes | None, new: bytes | None) -> tuple[int | None, int | None]:
    """Lines added and removed from `old` to `new`; None when the files are too large or binary."""
    if (old and len(old) > COUNT_LIMIT) or (new and len(new) > COUNT_LIMIT):
        return None, None
    if b"\0" in (old or b"")[:8192] or b"\0" in (new or b"")[:8192]:
        return None, None
    a = (old or b"").decode("utf-8", "replace").splitlines()
    b = (new or b"").decode("utf-8", "replace").splitlines()
    plus = minus = 0
    for line in difflib.unified_diff(a, b, lineterm="", n=0):
        if line.startswith("+") and not line.startswith("+++"):
            plus += 1
        elif line.startswith("-") and not line.startswith("---"):
            minus += 1
    return plus, minus


def _segment_files(cps: Checkpoints, start: int, end: int) -> list[tuple[str, int | None, int | None]]:
    """Each file changed between two log positions, with its +/- line counts."""
    first: dict[str, Change] = {}
    last: dict[str, Change] = {}
    for change in cps.changes[start:end]:
        first.setdefault(change.path, change)
        last[change.path] = change
    out = []
    for path, change in first.items():

        def load(name: str | None) -> bytes | None:
            if name is None or name == UNKNOWN:
                return None
            try:
                return cps.blobs.get(name)
            except BlobError:
                return None

        plus, minus = _counts(load(change.before), load(last[path].after))
        out.append((display(path, cps.project_dir), plus, minus))
    return out


def rewind_entries(session: AgentSession) -> list[RewindEntry]:
    """Every earlier prompt of the current conversation, oldest first, then the branches left by rewinds."""
    cps = session.checkpoints
    lengths: dict[str, int] = {}  # by conversation: its history is read from its blob once, not once a prompt

    def length(point: PromptPoint) -> int:
        if point.conv not in lengths:
            found = _compacted_conv(cps, point.conv)
            known = cps.compacted_lengths.get(found) if found is not None else None
            # the count kept with the blob: parsing a compacted history of hundreds of turns only to count it
            # cost a burst of memory (and time) at every /rewind; stores older than the count still parse it
            lengths[point.conv] = known if known is not None else len(_history_of(session, point))
        return lengths[point.conv]

    points = [p for p in cps.visible_prompts() if p.msg < length(p)]
    entries: list[RewindEntry] = []
    if not points:  # a session recorded before checkpoints: the conversation can still go back
        for index, message in enumerate(session.messages):
            text = _user_text(message)
            if text:
                entries.append(RewindEntry(text, "", None, index, None, prompt=text))
    for n, point in enumerate(points):
        end = points[n + 1].pos if n + 1 < len(points) else cps.pos
        entries.append(
            RewindEntry(
                point.prompt,
                point.ts,
                point,
                point.msg,
                point.pos,
                _segment_files(cps, point.pos, end),
                prompt=point.prompt,
            )
        )
    for branch in cps.branches:
        label = f"branch left at {branch.ts[11:16]}: {branch.first} ({plural(branch.prompts, 'prompt')})"
        entries.append(RewindEntry(label, branch.ts, branch, None, branch.pos))
    return entries


def history_before_compaction(cps: Checkpoints, conv: str) -> list[dict[str, Any]] | None:
    """The messages a prompt of `conv` indexes into when a compaction lies between it and now, else None.

    Walking from the current conversation up to `conv`, the compacted conversation nearest to
    `conv` holds them (a rewind keeps the numbering; a compaction starts a new one).
    """
    found = _compacted_conv(cps, conv)
    name = cps.compactions.get(found) if found is not None else None
    return cps.messages_blob(name) if name is not None else None


def _compacted_conv(cps: Checkpoints, conv: str) -> str | None:
    """The compacted conversation whose blob holds the history a prompt of `conv` indexes into, else None."""
    with cps.lock:
        found: str | None = None
        at: str | None = cps.conv
        seen: set[str] = set()
        while at is not None and at not in seen:
            seen.add(at)
            if at in cps.compactions:
                found = at
            if at == conv:
                break
            at = cps.convs.get(at, (None, None))[0]
        return found


def _history_of(session: AgentSession, point: PromptPoint) -> list[dict[str, Any]]:
    """The history `point.msg` counts in: the current one, or the one a later compaction replaced."""
    try:
        kept = history_before_compaction(session.checkpoints, point.conv)
    except (BlobError, ValueError):
        kept = None
    return session.messages if kept is None else kept


def _user_text(message: dict[str, Any]) -> str:
    if message.get("role") != "user":
        return ""
    content = message.get("content")
    if isinstance(content, str):
        return content
    return " ".join(b.get("text", "") for b in content or () if isinstance(b, dict) and b.get("type") == "text").strip()


def plan(session: AgentSession, entry: RewindEntry) -> list[FileStep]:
    """The files restoring `entry`'s code would change (empty when it has no checkpoints)."""
    if entry.pos is None:
        return []
    return code_steps(session.checkpoints, entry.pos)


# --- restoring -----------------------------------------------------------------------------


def apply_code(cps: Checkpoints, steps: list[FileStep], overwrite: bool = True, state: Any = None) -> RewindResult:
    """Write each step's bytes and mode (or delete the file); conflicts are skipped unless `overwrite`.

    Where each file goes is checked again now (restore_paths.py): a link in its place is replaced, never
    followed; a path through a folder link made since the checkpoint, or into a protected place, is refused.
    """
    result = RewindResult([])
    protected = protected_places(cps.project_dir)
    places = {id(s): locate(s.path, s.real, cps.project_dir, protected) for s in steps if not s.problem}
    todo = [
        s
        for s in steps
        if id(s) in places and not places[id(s)].problem and (overwrite or not (s.conflict or places[id(s)].link))
    ]
    reals = {s.path: places[id(s)].dest for s in todo if places[id(s)].dest != os.path.normpath(s.path)}
    cps.before_writes([(s.path, s.current, s.data, s.mode) for s in todo], by="rewind", reals=reals)  # one fsync
    chosen = {id(s) for s in todo}
    for step in steps:
        name = display(step.path, cps.project_dir)
        problem = step.problem or (places[id(step)].problem if id(step) in places else step.blocked)
        if problem:
            result.unrestored.append(name)
            result.lines.append(f"could not restore {name}: {problem}")
            continue
        if id(step) not in chosen:
            result.lines.append(f"kept {name} as it is (changed outside agent-tui)")
            continue
        where = places[id(step)]
        try:
            if step.target is None:
                if where.link or os.path.lexists(where.dest):
                    remove(where)
                result.lines.append(did(where, "removed", name))
            else:
                assert step.data is not None
                write_back(where, step.data, step.mode)
                result.lines.append(did(where, "restored", name))
            cps.wrote(step.path)
        except OSError as exc:
            cps.write_failed(step.path)
            result.unrestored.append(name)
            result.lines.append(f"could not restore {name}: {exc.strerror or exc}")
            continue
        if state is not None:
            from tui.tools.freshness import forget_read

            forget_read(state, step.path)  # the model must Read it again before editing
    return result


def keep_branch(session: AgentSession, entry: RewindEntry) -> Branch:
    """Keep the conversation and the files as they are now, as a branch to come back to."""
    cps = session.checkpoints
    current = list(session.messages)
    later = [p for p in cps.visible_prompts() if entry.msg is None or p.msg >= entry.msg]
    start = entry.msg if entry.msg is not None else len(current)
    first = later[0].prompt if later else next((t for t in map(_user_text, current[start:]) if t), "")
    branch: Branch = cps.keep_branch(current, first or "(no prompt)", len(later))
    if session.transcript:
        session.transcript.write(
            {
                "type": "branch",
                "id": branch.id,
                "messages_blob": branch.messages,
                "first": branch.first,
                "prompts": branch.prompts,
                "ts": branch.ts,
            }
        )
    return branch


def restore_conversation(session: AgentSession, entry: RewindEntry) -> None:
    """Make the conversation what it was at `entry` (the one left was kept by `keep_branch`)."""
    cps = session.checkpoints
    current = list(session.messages)
    if isinstance(entry.point, Branch):
        messages = cps.messages_blob(entry.point.messages)
        parent, cut = entry.point.conv, None
    else:
        assert entry.msg is not None
        before = _history_of(session, entry.point) if isinstance(entry.point, PromptPoint) else current
        # before a compaction: its own (longer) history, continued from the conversation it was in
        parent = (
            entry.point.conv if isinstance(entry.point, PromptPoint) and before is not session.messages else cps.conv
        )
        messages, cut = before[: entry.msg], entry.msg
    if messages == current:
        return
    cps.new_conv(parent, cut)
    session.messages = messages
    session.costs.note_rewrite(session.loop_path, "history rewound")
    session._before_prompt = (len(messages), messages[-1] if messages else None)
    if getattr(session, "context", None) is not None:
        session.context.reset()
    if session.transcript:
        session.transcript.write({"type": "history", "reason": "rewind", "messages": messages})


def rewind(
    session: AgentSession, entry: RewindEntry, mode: Mode, steps: list[FileStep] | None = None, overwrite: bool = True
) -> RewindResult:
    """Restore `entry` in the code, the conversation or both; blocking, call it off the UI thread."""
    if session.running:
        raise RuntimeError("A turn is running: interrupt it before rewinding.")
    result = RewindResult([])
    steps = plan(session, entry) if steps is None and mode != "conversation" else steps or []
    conversation = mode != "code" and (entry.msg is None or entry.msg < len(session.messages))
    if conversation or steps:
        keep_branch(session, entry)  # before anything changes: the branch records where the files stood
    if mode in ("both", "code") and steps:
        result = apply_code(session.checkpoints, steps, overwrite, session.state)
    if mode in ("both", "conversation"):
        restore_conversation(session, entry)
        result.prompt = entry.prompt
    if result.unrestored:
        result.lines.insert(
            0,
            f"{plural(len(result.unrestored), 'file')} could not be restored: "
            f"{', '.join(result.unrestored)}; the rest were.",
        )
    return result
