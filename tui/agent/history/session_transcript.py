"""The session's JSONL transcript: opening it, following events into it, forking it when it is lost."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from tui.agent.events import Event, Notice

from .transcript import SKIPPED_EVENTS, Transcript, new_session_id, sessions_folder

if TYPE_CHECKING:
    from tui.agent.events.bus import EventBus
    from tui.agent.options import AgentOptions
    from tui.agent.session import AgentSession


class TranscriptMixin:
    """AgentSession's transcript methods (it holds `transcript`, `_transcript_sub`, `options`, `bus`, `session_id`)."""

    transcript: Transcript | None
    _transcript_sub: Any
    options: AgentOptions
    bus: EventBus
    session_id: str
    loop_path: str
    publish: Callable[[Event], None]  # AgentSession.publish

    @property
    def transcript_path(self) -> Path | None:
        return self.transcript.path if self.transcript else None

    def _open_transcript(self) -> None:
        if not self.options.transcript:
            return
        from tui.config.settings import user_data_dir

        base = self.options.sessions_dir or (user_data_dir() / "sessions")
        path = sessions_folder(Path(base), self.options.project_dir) / f"{self.session_id}.jsonl"
        self.attach_transcript(self.new_transcript(path))

    def new_transcript(self, path: Path) -> Transcript:
        """A writer for `path` that reports problems as notices (and a lost file via `transcript_lost`)."""
        return Transcript(
            path, on_error=lambda msg: self.publish(Notice(level="warning", text=msg)), on_lost=self.transcript_lost
        )

    def attach_transcript(self, transcript: Transcript, *, header: bool = True) -> None:
        """Make `transcript` the one events and messages go to."""
        self.transcript = transcript
        if header:
            transcript.header(self.session_id, self.options.project_dir, self.options.model)
        if self._transcript_sub is None:  # one subscription for the session's life: it follows self.transcript
            self._transcript_sub = self.bus.subscribe(self._transcript_event, name="transcript", skip=SKIPPED_EVENTS)

    def _transcript_event(self, event: Event) -> None:
        transcript = self.transcript
        if transcript is not None and event.loop_path == self.loop_path:  # a subagent's go to its own file
            transcript.event(event)

    def transcript_lost(self, reason: str) -> None:
        """The session file vanished or became unwritable: fork at once in -p, else offer `/fork`."""
        old = self.transcript_path
        if not self.options.interactive:
            path = self.fork_transcript()
            text = f"The session file {old} {reason}; continuing in a new file, {path}."
        else:
            text = f"The session file {old} {reason}, so nothing more is saved; /fork continues in a new file."
        self.publish(Notice(level="warning", text=text))

    def fork_transcript(self) -> Path:
        """Continue in a new session file holding the whole history so far; returns its path."""
        from .session_resume import write_fork

        if not self.options.transcript:
            raise RuntimeError("This run saves no session file, so there is nothing to fork.")

        old_id, old = self.session_id, self.transcript
        self.session_id = new_session_id()
        path = write_fork(cast("AgentSession", self), old_id)  # the mixin is AgentSession's only
        if old is not None:
            old.close()
        return path

    def close_transcript(self) -> None:
        if self._transcript_sub is not None:
            self.bus.flush(5)
            self._transcript_sub.close()
            self._transcript_sub = None
        if self.transcript:
            self.transcript.close()
