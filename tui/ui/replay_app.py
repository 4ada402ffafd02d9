"""`agent-tui replay [SESSION]`: the full app playing a recorded session; nothing is sent, no tool runs."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import work
from textual.binding import Binding

from tui.agent.history.replay_check import SPEEDS, ReplayError, check_replayable
from tui.agent.options import AgentOptions
from tui.text.wording import plural

from .app import AgentApp

if TYPE_CHECKING:
    from tui.agent.history.replay import Player


def speed_name(speed: float) -> str:
    return "instant" if speed == 0 else f"{speed:g}×"


def parse_speed(text: str) -> float:
    """`1`, `4x`, `16×` or `instant`."""
    word = text.strip().lower().rstrip("x×")
    if word in ("instant", "0", "max"):
        return 0.0
    try:
        value = float(word)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--speed takes 1, 4, 16 or instant, not {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError("--speed cannot be negative")
    return value


class ReplayApp(AgentApp):
    """The app with a player in place of the engine: Space pauses, → steps, +/- change the speed."""

    BINDINGS = [
        Binding("space", "pause", "Pause", priority=True, id="replay_pause"),
        Binding("right", "step", "Step", priority=True, id="replay_step"),
        Binding("plus,equals_sign", "speed(1)", "Faster", priority=True, id="replay_faster", key_display="+"),
        Binding("minus", "speed(-1)", "Slower", priority=True, id="replay_slower", key_display="-"),
    ]

    def __init__(self, options: AgentOptions, events: list[Any] | Path, *, speed: float = 1.0, title: str = "") -> None:
        super().__init__(options)
        #: the events, or the session file to read them from after the first frame
        self.replay_events = events
        self.replay_title = title
        self.initial_speed = speed
        self.player: Player | None = None

    def _after_first_frame(self) -> None:
        """No engine to prepare and no trust to ask: attach to the session's bus and start playing."""
        self._attach_session()
        self.prompt_area.disabled = True
        if isinstance(self.replay_events, Path):
            self._load(self.replay_events)
        else:
            self._play(self.replay_events, 0)

    @work(thread=True, group="replay-load", exit_on_error=False)
    def _load(self, path: Path) -> None:
        """Parse the transcript off the UI thread: the first frame does not wait for a long session."""
        from tui.agent.history.replay import load_events  # the events module: after the first frame

        try:
            events, skipped = load_events(path)
        except ReplayError as exc:
            self.call_from_thread(self.notify, str(exc), severity="error")
            return
        self.call_from_thread(self._play, events, skipped)

    def _play(self, events: list[Any], skipped: int) -> None:
        from tui.agent.history.replay import Player

        self.replay_events = events
        self.player = Player(events, self.session.bus, self.initial_speed)
        extra = f" Skipped {plural(skipped, 'record')} this version cannot replay." if skipped else ""
        self.notify(
            f"Replaying {self.replay_title} at {speed_name(self.initial_speed)}: Space pauses, → steps, "
            f"+/- change the speed. Nothing is sent.{extra}",
            timeout=6,
        )
        self.player.start()

    async def submit_prompt(self, text: str) -> None:
        self.notify("This is a replay: nothing is sent.", severity="warning")

    def action_interrupt(self) -> None:
        if not self.conversation.following:
            self.conversation.jump_to_bottom()

    def action_pause(self) -> None:
        if self.player is not None:
            paused = self.player.toggle_pause()
            self.notify("Paused: Space plays, → steps." if paused else "Playing.", timeout=2)

    def action_step(self) -> None:
        if self.player is not None:
            self.player.step()

    def action_speed(self, direction: int) -> None:
        if self.player is not None:
            self.notify(f"Speed {speed_name(self.player.change_speed(direction))}", timeout=2)

    def exit(self, *args: Any, **kwargs: Any) -> None:
        if self.player is not None:
            self.player.stop()
        super().exit(*args, **kwargs)


def replay_target(options: AgentOptions, target: str | None) -> Path:
    """The session file to play: an id, a unique id prefix, a path, or (None) the project's newest session."""
    from tui.agent.history.resume import find_session, list_sessions, sessions_base

    if target:
        given = Path(target) if target.endswith(".jsonl") or "/" in target else target  # replay only reads it
        return find_session(options.project_dir, given, sessions_base(options))
    sessions = list_sessions(options.project_dir, sessions_base(options))
    if not sessions:
        raise ReplayError(f"No saved session in {options.project_dir} to replay.")
    return sessions[0].path


def main(argv: list[str]) -> int:
    """`agent-tui replay [SESSION] [--speed S] [--cwd DIR]`."""
    parser = argparse.ArgumentParser(prog="agent-tui replay", description="Play a recorded session in the app.")
    parser.add_argument("session", nargs="?", help="id, unique id prefix or path (default: this project's newest)")
    parser.add_argument(
        "--speed", type=parse_speed, default=1.0, help=f"1, 4, 16 or instant ({', '.join(map(speed_name, SPEEDS))})"
    )
    parser.add_argument("--cwd", type=Path, help="project directory (default: the current directory)")
    args = parser.parse_args(argv)
    options = AgentOptions(
        project_dir=(args.cwd or Path.cwd()).resolve(), offline=True, transcript=False, interactive=True
    )
    try:
        path = replay_target(options, args.session)
        options.model = check_replayable(path) or options.model
    except LookupError as exc:
        print(f"agent-tui: {exc}", file=sys.stderr)
        return 2
    from tui.ui.tty_check import terminal_missing

    if terminal_missing():  # Textual would draw to whatever stderr is, for ever
        print(
            f"agent-tui: replay plays the session in the full-screen app, which needs a terminal (stdin and stdout "
            f"must be a TTY); run it in a terminal, or read the recorded session itself: {path}",
            file=sys.stderr,
        )
        return 2
    app = ReplayApp(options, path, speed=args.speed, title=path.stem)
    from tui.tools.shutdown import exit_app_on_signal

    with exit_app_on_signal(lambda code: app.exit(None, code)):
        app.run()
    return 0
