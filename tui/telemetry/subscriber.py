"""The telemetry bus subscriber: one per process, attached to the top-level session, flushed on exit.

It subscribes as soon as the session is built and sets up the OpenTelemetry SDK on a thread of its own,
so neither the app's first frame nor `-p`'s first request waits for the SDK's imports; events that come
first wait in the bus queue. What goes wrong is said once, in one sentence: a toast in the app, a line on
stderr with `-p` (and after the app has left the screen).
"""

from __future__ import annotations

import sys
import threading
import time
from typing import TYPE_CHECKING, Any, TextIO

from tui import install_hint
from tui.agent import events as ev
from tui.text.sanitize import visible

from .config import TelemetryConfig

if TYPE_CHECKING:
    from tui.agent.door import Session

#: events telemetry never needs (per-token deltas above all), so its thread is not woken for them
SKIPPED = (
    ev.BlockStarted,
    ev.BlockDelta,
    ev.BlockFinished,
    ev.ToolOutput,
    ev.McpMessage,
    ev.McpServerChanged,
    ev.ContextUsage,
    ev.Notice,
    ev.HookStarted,
    ev.HookFinished,
    ev.CheckpointSaved,
)
MISSING_EXTRA = (
    "telemetry is on (CLAUDE_CODE_ENABLE_TELEMETRY) but OpenTelemetry is not installed (it comes with agent-tui: "
    f"{install_hint()} installs it again); the session goes on without telemetry."
)
#: how long the bus thread waits for the SDK to be set up before it stops waiting
START_WAIT_S = 30.0


class Telemetry:
    """Turns a session's events into Claude Code's metrics, events and spans; `close()` flushes them, bounded."""

    def __init__(
        self, config: TelemetryConfig, problems: list[str], *, interactive: bool, stderr: TextIO | None = None
    ) -> None:
        self.config = config
        self.interactive = interactive
        self.stderr = stderr
        self.session: Session | None = None
        self.signals: Any = None
        self.spans: Any = None
        self.pipeline: Any = None
        self.closing = False
        self._pending = list(problems)  # said once there is a session to say them through
        self._said_failure = False
        self._said_lock = threading.Lock()
        self._lock = threading.Lock()
        self._ready = threading.Event()
        self._subscription: Any = None

    # --- saying things -------------------------------------------------------------------

    def say(self, sentence: str) -> None:
        """One sentence to the user: a toast while the app runs, else a line on stderr."""
        text = sentence[0].upper() + sentence[1:] if sentence else sentence
        session = self.session
        if self.interactive and session is not None and not self.closing:
            session.publish(ev.Notice(level="warning", text=text))
            return
        stream = self.stderr or sys.stderr
        try:
            stream.write(visible(f"agent-tui: {text}") + "\n")
            stream.flush()
        except (OSError, ValueError):
            pass

    def export_failed(self, endpoint: str, why: str) -> None:
        """An exporter could not deliver: said once for the whole run, and the session goes on."""
        with self._said_lock:
            if self._said_failure:
                return
            self._said_failure = True
        self.say(
            f"telemetry could not be sent: the OTLP endpoint {endpoint} {why}; the session goes on, and "
            "what it records may not reach the collector."
        )

    # --- attaching -----------------------------------------------------------------------

    def attach(self, session: Session) -> None:
        """Subscribe to `session`'s bus (AgentOptions.on_session calls this) and start the SDK on a thread."""
        if self.session is not None:
            return  # one session per process: the first is the one the run is about
        self.session = session
        self._subscription = session.bus.subscribe(self._handle, name="telemetry", skip=SKIPPED)
        pending, self._pending = self._pending, []
        for sentence in pending:
            self.say(sentence)
        threading.Thread(target=self._start, name="telemetry-start", daemon=True).start()

    def _start(self) -> None:
        try:
            if not self.config.any_signal:
                return
            try:
                import opentelemetry.sdk  # noqa: F401 - the `otel` extra
            except ImportError:
                self.say(MISSING_EXTRA)
                return
            from .attributes import StandardAttributes
            from .pipeline import Pipeline
            from .signals import Signals

            console = (self.stderr or sys.stderr) if not self.interactive else None
            pipeline = Pipeline(self.config, console, self.export_failed, self.say)
            standard = StandardAttributes(self.config, "cli" if self.interactive else "sdk-cli")
            session_id = lambda: self.session.session_id if self.session else ""  # noqa: E731 - /clear gives a new id
            signals = Signals(self.config, standard, pipeline.meter, pipeline.logger, session_id)
            if pipeline.tracer is not None:
                from .spans import Spans

                self.spans = Spans(self.config, standard, pipeline.tracer, session_id)
            signals.session_started()
            self.signals, self.pipeline = signals, pipeline
        except Exception as exc:  # telemetry must never take the session down
            self.say(f"telemetry could not start: {exc}; the session goes on without it.")
        finally:
            self._ready.set()

    def _handle(self, event: ev.Event) -> None:
        if not self._ready.wait(START_WAIT_S):
            return
        with self._lock:
            if self.signals is not None:
                self.signals.handle(event)
            if self.spans is not None:
                self.spans.handle(event)

    # --- the end -------------------------------------------------------------------------

    def close(self) -> None:
        """Export what is left, within CLAUDE_CODE_OTEL_SHUTDOWN_TIMEOUT_MS (2 s) or until an export fails."""
        if self.closing:
            return
        self.closing = True
        if self.session is None:  # the run ended before any session was built: nothing was started
            return
        deadline = time.monotonic() + self.config.shutdown_ms / 1000
        self.session.bus.flush(max(0.0, min(1.0, deadline - time.monotonic())))
        if not self._ready.wait(max(0.0, deadline - time.monotonic())) or self.pipeline is None:
            return
        with self._lock:
            if self.spans is not None:
                self.spans.close()
        self.pipeline.shutdown(max(0.0, deadline - time.monotonic()))
        if self._subscription is not None:
            self._subscription.close()
