"""Checkpoints: what every file held before agent-tui changed it, kept so /rewind and /undo can go back.

Each session has a manifest, `checkpoints/<session id>.manifest` (JSON lines) in its sessions folder, and
the project's sessions share one blob store (`checkpoints/objects`, blobstore.py), so a
fork costs nothing. The manifest is a log, flushed (fdatasync) record by record, after the
blobs its record names as `before` are on disk:

- `prompt`: a checkpoint before each user prompt (its text, where the conversation stood
  and where the change log stood);
- `change`: one file changed (by Edit, Write, Bash or a restore), with the blob and mode
  before and after; it is written, with its blob, *before* the file is touched;
- `conv` / `branch`: a conversation rewound (the abandoned messages are kept as a blob);
- `compacted`: a conversation's messages before a compaction (a blob); a new conversation follows;
- `untracked`: a Bash command ran in a project too big to scan, so its changes are not known.

The state of the files at any point of the log is recovered by taking, for every path
changed after it, the `before` of its first change after it (rewind.py).
"""

from __future__ import annotations

import json
import os
import shutil
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from tui.config.special_files import read_regular_bytes
from tui.system.private_files import private_fd

from .blobstore import INLINE, BlobError, BlobStore, blob_hash
from .checkpoint_records import UNKNOWN, now, prompt_point, prompts_in_log
from .checkpoint_records import Branch as Branch  # re-exported: rewind and session_tree reach them here
from .checkpoint_records import Change as Change
from .checkpoint_records import PromptPoint as PromptPoint
from .checkpoint_records import file_mode as file_mode
from .tree_watch import Signature, TreeWatch

#: not .jsonl: the sessions folder's transcripts are the only .jsonl files under it
MANIFEST_SUFFIX = ".manifest"
#: prompt checkpoints held in memory (the newest; up to twice as many between trims): older ones are read back
#: from the manifest when the whole list is asked for (`all_prompts`: /rewind's list, /undo)
KEEP_PROMPTS = 200


class Checkpoints:
    """One session's checkpoint log and the shared blob store; thread-safe."""

    def __init__(
        self,
        folder: Path | None,
        session_id: str,
        project_dir: Path,
        publish: Callable[[Any], None] = lambda event: None,
    ) -> None:
        self.folder = folder
        self.session_id = session_id
        self.project_dir = project_dir
        self.publish = publish
        self.blobs = BlobStore(folder / "objects" if folder else None)
        self.manifest = folder / f"{session_id}{MANIFEST_SUFFIX}" if folder else None
        self.lock = threading.RLock()
        self.changes: list[Change] = []
        #: the newest prompt checkpoints (all of them: `all_prompts()`); `prompts_on_disk` older ones are only in
        #: the manifest at `_log` (kept when the session degrades to memory: what was written stays readable)
        self.prompts: list[PromptPoint] = []
        self.keep_prompts = KEEP_PROMPTS
        self.prompts_on_disk = 0
        self._log = self.manifest
        self._next_prompt = 1
        self.branches: list[Branch] = []
        self.convs: dict[str, tuple[str | None, int | None]] = {"": (None, None)}
        self.conv = ""
        #: conversation -> blob of its messages just before it was compacted
        self.compactions: dict[str, str] = {}
        #: conversation -> how many messages that blob holds (stores written before this was kept have none)
        self.compacted_lengths: dict[str, int] = {}
        self.undone: set[int] = set()
        self.untracked: dict[int, str] = {}
        self.damaged = 0
        #: what agent-tui last left in each file: (signature, blob) so Bash can tell what it changed
        self.known: dict[str, tuple[Signature | None, str | None]] = {}
        #: the manifest, open for appending while the session lasts (an open per record costs a journal wait)
        self._fd: int | None = None
        #: the project's files kept current by inotify (tree_watch.py); False once it proved unavailable
        self._watch: TreeWatch | Literal[False] | None = None
        self._load()

    def close(self) -> None:
        """Close the manifest (a session left for another one)."""
        with self.lock:
            fd, self._fd = self._fd, None
            watch, self._watch = self._watch, None
        if fd is not None:
            os.close(fd)
        if isinstance(watch, TreeWatch):
            watch.close()

    def __del__(self) -> None:
        if getattr(self, "_fd", None) is not None:
            os.close(self._fd)  # type: ignore[arg-type]

    # --- the log --------------------------------------------------------------------------

    def _load(self) -> None:
        if self.manifest is None:
            return
        try:
            raw = read_regular_bytes(self.manifest)
        except FileNotFoundError:
            return
        except OSError:
            self.damaged += 1
            return
        for line in raw.split(b"\n"):
            if not line.strip():
                continue
            try:
                self._apply(json.loads(line))
            except (ValueError, TypeError, KeyError, AttributeError):
                self.damaged += 1

    def _apply(self, r: dict[str, Any]) -> None:
        kind = r["t"]
        if kind == "change":
            for name, stored in (r.get("inline") or {}).items():
                self.blobs.logged[name] = stored
            self.changes.append(
                Change(
                    len(self.changes),
                    r["path"],
                    r["before"],
                    r["after"],
                    r.get("mode_before"),
                    r.get("mode_after"),
                    r.get("by", ""),
                    int(r.get("cp", 0)),
                    r.get("real"),
                )
            )
            self.known[r["path"]] = (None, r["after"])
        elif kind == "prompt":
            point = prompt_point(r)
            self.prompts.append(point)
            self._next_prompt = max(self._next_prompt, point.id + 1)
            if self.manifest is not None and len(self.prompts) > 2 * self.keep_prompts:
                drop = len(self.prompts) - self.keep_prompts
                del self.prompts[:drop]
                self.prompts_on_disk += drop
        elif kind == "conv":
            self.convs[str(r["id"])] = (r.get("parent"), r.get("cut"))
            self.conv = str(r["id"])
        elif kind == "branch":
            self.branches.append(
                Branch(
                    str(r["id"]),
                    str(r["conv"]),
                    str(r["messages"]),
                    int(r["pos"]),
                    str(r.get("first", "")),
                    int(r.get("prompts", 0)),
                    str(r.get("ts", "")),
                )
            )
        elif kind == "compacted":
            self.compactions[str(r["conv"])] = str(r["messages"])
            if isinstance(r.get("count"), int):
                self.compacted_lengths[str(r["conv"])] = r["count"]
        elif kind == "undone":
            self.undone.add(int(r["cp"]))
        elif kind == "untracked":
            self.untracked[int(r["cp"])] = str(r.get("reason", ""))
        elif kind == "failed" and self.changes:
            path = r.get("path") or self.changes[-1].path
            last = next(c for c in reversed(self.changes) if c.path == path)
            self.known[path] = (None, last.before)

    def _write(self, record: dict[str, Any]) -> None:
        """Append one record, fsynced (a checkpoint must exist on disk before the file it protects changes)."""
        self._write_many([record])

    def _write_many(self, records: list[dict[str, Any]], flush: bool = True) -> None:
        """Append records in one write and one fdatasync (`flush=False`: by the flusher, soon), once the blobs
        they name as `before` are on disk."""
        if self.manifest is not None and records:
            line = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode("utf-8", "surrogateescape")
            try:
                self.blobs.make_durable([r.get("before") for r in records])
                if self._fd is None:
                    self._fd = private_fd(self.manifest)  # 0600 in a 0700 folder
                os.write(self._fd, line)
                if flush:
                    os.fdatasync(self._fd)
                else:
                    self.blobs.flush_later(self.manifest)
            except OSError as exc:
                self.degrade(exc)
        for record in records:
            self._apply(record)

    def degrade(self, exc: OSError) -> None:
        """The folder cannot be written: keep checkpoints in memory for the rest of the session, and say so."""
        from tui.agent.events import Notice

        if self.manifest is None:
            return
        self.close()
        where, self.manifest = self.manifest.parent, None
        self.blobs.memory_only = True
        self.publish(
            Notice(
                level="warning",
                text=f"Checkpoints cannot be saved in {where} ({exc.strerror or exc}); "
                "this session keeps them in memory, so /rewind will not survive "
                "a restart.",
            )
        )

    @property
    def pos(self) -> int:
        return len(self.changes)

    @property
    def current(self) -> int:
        """The id of the newest prompt checkpoint (0 before the first prompt)."""
        return self.prompts[-1].id if self.prompts else 0

    # --- taking checkpoints -------------------------------------------------------------------

    def prompt(self, turn: int, text: str, msg: int) -> PromptPoint:
        """Checkpoint before a prompt is sent."""
        from tui.agent.events import CheckpointSaved

        with self.lock:
            cp = self._next_prompt
            self._write(
                {
                    "t": "prompt",
                    "id": cp,
                    "turn": turn,
                    "prompt": text,
                    "msg": msg,
                    "conv": self.conv,
                    "pos": self.pos,
                    "ts": now(),
                }
            )
        self.publish(CheckpointSaved(checkpoint=cp, reason="prompt", paths=()))
        return self.prompts[-1]

    def before_write(
        self,
        path: str | Path,
        previous: bytes | None,
        data: bytes | None,
        by: str = "edit",
        mode_after: int | None = None,
    ) -> None:
        """Keep `previous` (the file now) and `data` (what is about to be written) before the file changes."""
        self.before_writes([(str(path), previous, data, mode_after)], by)

    def before_writes(
        self,
        items: list[tuple[str, bytes | None, bytes | None, int | None]],
        by: str,
        reals: dict[str, str] | None = None,
    ) -> None:
        """Checkpoint several files (path, content now, content to write, mode to set) with one flush of the log.

        `reals`: where each write really lands when a link leads elsewhere (default: resolved now).
        """
        from tui.agent.events import CheckpointSaved

        from .restore_paths import taken_at

        if not items:
            return
        with self.lock:
            records = []
            for path, previous, data, mode_after in items:
                # `before` protects the file: its own blob file, fsynced. `after` (the file holds it next) travels
                # in the record when small, or is fsynced in the background (blobstore.py)
                before = self._put(previous, name=self._known_name(path, previous))
                inline: dict[str, str] = {}
                after = self._put(data, previous, before, durable=False, inline=inline)
                mode = file_mode(path)
                record = {
                    "t": "change",
                    "path": path,
                    "before": before,
                    "after": after,
                    "mode_before": mode,
                    "mode_after": mode_after if mode_after is not None else mode,
                    "by": by,
                    "cp": self.current,
                }
                if real := (taken_at(path) if reals is None else reals.get(path)):
                    record["real"] = real
                records.append({**record, "inline": inline} if inline else record)
            self._write_many(records, flush=by != "edit" or self._first_in_turn([p for p, *_ in items]))
        self.publish(CheckpointSaved(checkpoint=self.current, reason=by, paths=tuple(p for p, *_ in items)))

    def _first_in_turn(self, paths: list[str]) -> bool:
        """Whether a path is changed for the first time since the newest prompt.

        Only that change's record must be on disk before the file is touched: every point /rewind and
        /undo go back to (a prompt, a branch) is restored from the first change of each path after it.
        A later change in the same turn is written at once (a kill cannot lose it) and flushed soon; a
        crash of the machine in between at most makes the file look changed outside agent-tui.
        """
        start = self.prompts[-1].pos if self.prompts else 0
        earlier = {change.path for change in self.changes[start:]}
        return any(path not in earlier for path in paths)

    def _put(
        self,
        data: bytes | None,
        base: bytes | None = None,
        base_name: str | None = None,
        name: str | None = None,
        durable: bool = True,
        inline: dict[str, str] | None = None,
    ) -> str | None:
        """Store a blob; a small new one is also added to `inline`, for the log record to carry (blobstore.py)."""
        if data is None:
            return None
        try:
            name, small = self.blobs.put_small(
                data, base, base_name, name, durable, INLINE if inline is not None else 0
            )
        except OSError as exc:  # the folder cannot be written: keep it in memory from now on
            self.degrade(exc)
            return self.blobs.put(data, base, base_name, name)
        if small is not None and inline is not None:
            inline[name] = self.blobs.logged[name]
        return name

    def _known_name(self, path: str, data: bytes | None) -> str | None:
        """The blob agent-tui last wrote to `path`, when the file is untouched since (same mtime, size, mode)."""
        signature, blob = self.known.get(path, (None, None))
        if data is None or signature is None or blob in (None, UNKNOWN) or signature[1] != len(data):
            return None
        try:
            st = os.lstat(path)
        except OSError:
            return None
        return blob if (st.st_mtime_ns, st.st_size, st.st_mode) == signature and self.blobs.has(blob) else None

    def write_failed(self, path: str | Path | None = None) -> None:
        """The write a change announced did not happen: the file still holds its `before`."""
        with self.lock:
            self._write({"t": "failed", "path": str(path) if path else None})

    def wrote(self, path: str | Path) -> None:
        """Remember the signature of what agent-tui just wrote, so a Bash scan does not mistake it."""
        path = str(path)
        with self.lock:
            blob = self.known.get(path, (None, None))[1]
            try:
                st = os.lstat(path)
                self.known[path] = ((st.st_mtime_ns, st.st_size, st.st_mode), blob)
            except OSError:
                self.known[path] = (None, blob)

    # --- conversations -------------------------------------------------------------------------

    def all_prompts(self) -> list[PromptPoint]:
        """Every prompt checkpoint of the session, oldest first: the older ones read back from the manifest."""
        with self.lock:
            newest = list(self.prompts)
            if not self.prompts_on_disk or self._log is None:
                return newest
            try:
                raw = read_regular_bytes(self._log)
            except OSError:
                return newest
        return prompts_in_log(raw, newest[0].id if newest else self._next_prompt) + newest

    def visible_prompts(self, conv: str | None = None, limit: int | None = None) -> list[PromptPoint]:
        """The prompt checkpoints on the conversation `conv` (the current one), oldest first."""
        conv = self.conv if conv is None else conv
        out: list[PromptPoint] = []
        cut = limit
        seen: set[str] = set()
        every = self.all_prompts()
        while conv is not None and conv not in seen:
            seen.add(conv)
            out += [p for p in every if p.conv == conv and (cut is None or p.msg < cut)]
            parent, own_cut = self.convs.get(conv, (None, None))
            if own_cut is not None:
                cut = own_cut if cut is None else min(cut, own_cut)
            conv = parent
        return sorted(out, key=lambda p: p.id)

    def keep_branch(self, messages: list[dict[str, Any]], first: str, prompts: int) -> Branch:
        """Save the conversation about to be left (and where the files stand) as a branch to come back to."""
        data = json.dumps(messages, ensure_ascii=False, default=str).encode("utf-8", "surrogateescape")
        with self.lock:
            name = self.blobs.put(data)
            branch_id = os.urandom(4).hex()
            self._write(
                {
                    "t": "branch",
                    "id": branch_id,
                    "conv": self.conv,
                    "messages": name,
                    "pos": self.pos,
                    "first": first,
                    "prompts": prompts,
                    "ts": now(),
                }
            )
            return self.branches[-1]

    def new_conv(self, parent: str, cut: int | None) -> str:
        with self.lock:
            conv = os.urandom(4).hex()
            self._write({"t": "conv", "id": conv, "parent": parent, "cut": cut})
            return conv

    def messages_blob(self, name: str) -> list[dict[str, Any]]:
        data = self.blobs.get(name)
        messages = json.loads(data.decode("utf-8", "surrogateescape"))
        if not isinstance(messages, list):
            raise BlobError(f"checkpoint blob {name[:12]} is damaged")
        return messages

    def compacted(self, messages: list[dict[str, Any]]) -> str:
        """Keep the history a compaction is replacing, and go on in a new conversation (returns its id)."""
        data = json.dumps(messages, ensure_ascii=False, default=str).encode("utf-8", "surrogateescape")
        with self.lock:
            name = self.blobs.put(data)
            old = self.conv
            self._write({"t": "compacted", "conv": old, "messages": name, "count": len(messages)})
            return self.new_conv(old, None)

    def mark_undone(self, checkpoint: int) -> None:
        with self.lock:
            self._write({"t": "undone", "cp": checkpoint})


def copy_manifest(folder: Path | None, old_id: str, new_id: str) -> bool:
    """Give a forked session the checkpoints of the one it came from (the blobs are shared)."""
    if folder is None:
        return False
    source = folder / f"{old_id}{MANIFEST_SUFFIX}"
    try:
        if source.is_file():
            shutil.copyfile(source, folder / f"{new_id}{MANIFEST_SUFFIX}")
            return True
    except OSError:
        pass
    return False


def open_for(session: Any) -> Checkpoints:
    """The session's checkpoints, (re)opened when its id changed (a fork, a resume, /clear)."""
    current: Checkpoints | None = session._checkpoints
    if current is None or current.session_id != session.session_id:
        if current is not None:
            current.close()
        folder = None
        if session.options.transcript:
            from .resume import project_sessions_dir

            folder = project_sessions_dir(session.options) / "checkpoints"
            from .checkpoint_gc import prune_once

            prune_once(folder, int(getattr(session.options, "cleanup_period_days", 30) or 0))
        current = Checkpoints(folder, session.session_id, session.options.project_dir, session.publish)
        session._checkpoints = current
    return current


def same_content(path: str, blob: str | None) -> bool:
    """True when `path` holds exactly the blob `blob` (None: the path does not exist)."""
    try:
        data = read_regular_bytes(path)
    except FileNotFoundError:
        return blob is None
    except OSError:
        return False
    return blob is not None and blob_hash(data) == blob
