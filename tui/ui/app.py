"""The Textual app: composition, key bindings and message routing, nothing more.

Engine events reach the UI as `EngineEvent` messages (see `events.py`, which maps each
one to widgets); the SDK is imported in a thread worker after the first frame. So are the
engine's event classes and the controller (~20 ms of imports): nothing before the first
frame needs them, and the session that publishes them is built after it.
"""

from __future__ import annotations

import importlib
import threading
from collections import deque
from collections.abc import Iterable
from functools import cached_property, partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import events, on, work
from textual.app import App, ComposeResult, SystemCommand
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Button, Static

from tui.agent.options import AgentOptions
from tui.text.sanitize import one_line, visible

from . import gc_tuning, later_css, thread_streams
from .bindings import bindings_for
from .breakpoints import fit_size
from .conversation_keys import ConversationKeys
from .engine_inbox import DELTA_BATCH_S, EngineInbox
from .inspector_backlog import InspectorBacklog
from .interrupt_keys import InterruptKeys
from .notifier import FocusReports
from .terminal_model import TerminalModel
from .widgets.app_header import AppHeader
from .widgets.conversation import MAX_MOUNTED_TURNS, Conversation
from .widgets.prompt import PromptArea, PromptRow
from .widgets.queued_messages import QueuedMessages
from .widgets.status_line import StatusLine
from .widgets.tool_panel import ToolPanel
from .widgets.whole_footer import WholeFooter

if TYPE_CHECKING:
    from tui.agent.door import Session
    from tui.agent.events import Event

    from .events import EngineEvents, EventController
    from .notice_hold import NoticeHold

#: keys typed this soon after a permission dialog is drawn, or after another key, do not answer it
#: (answer_guard.GRACE_S; repeated here so starting the app does not import the dialog)
DEFAULT_GRACE_S = 0.5
#: what the status line names while the offline demo model answers (whatever model is chosen)
OFFLINE_LABEL = "offline demo"


def _optional(module: str) -> Any:
    """A module another engineer owns, or None while it does not exist yet."""
    try:
        return importlib.import_module(module)
    except ImportError:
        return None


class AgentApp(InterruptKeys, ConversationKeys, FocusReports, EngineInbox, App[int]):
    """agent-tui: the conversation, live tool activity, permission dialogs, the inspector."""

    CSS_PATH = Path(__file__).with_name("app.tcss")
    TITLE = "agent-tui"
    AUTO_FOCUS = "#prompt"
    BINDINGS = bindings_for("app")
    #: below 100 columns the tool panel steps aside (F3 brings it back); below 40 TooSmallScreen covers all
    HORIZONTAL_BREAKPOINTS = [(0, "-cramped"), (100, "-narrow"), (120, "-wide")]
    #: below 20 rows every dialog fills the screen (widgets/dialog_box.py)
    VERTICAL_BREAKPOINTS = [(0, "-short"), (20, "-tall")]
    PAUSE_GC_ON_SCROLL = True

    def __init__(
        self,
        options: AgentOptions,
        prompt: str | None = None,
        session: Session | None = None,
        *,
        permission_grace_s: float = DEFAULT_GRACE_S,
        max_mounted_turns: int = MAX_MOUNTED_TURNS,
    ) -> None:
        super().__init__()
        #: built on first use (after the first frame unless something needs it sooner)
        self._session: Session | None = session
        self.options = options
        self.initial_prompt = prompt
        self.permission_grace_s = permission_grace_s
        #: arrival time of the last key from the terminal (a dialog opening mid-typing sees it)
        self.last_key_time: float | None = None
        self.max_mounted_turns = max_mounted_turns
        self._controller: EventController | None = None
        #: the inspector is built on first F2; until then its events wait here
        self.inspector: Widget | None = None
        self._inspector_backlog = InspectorBacklog()
        #: what the terminal shows, so partial updates write only the cells that change (terminal_model.py)
        self._terminal_model = TerminalModel()
        self._subscription: Any = None
        self._inbox: deque[Event] = deque()
        self._inbox_lock = threading.Lock()
        self._wake_now = False
        self._wake_later = False
        self._events_deferred = False  # frame_budget: the rest of a burst waits for the next refresh
        self.frames_drawn = 0  # frames composed for the terminal (frame_budget waits for one between events)
        self._delta_batch_s = DELTA_BATCH_S
        #: tui.agent.events.BlockDelta and tui.ui.events.EngineEvents, set by _attach_session
        self._delta_type: type = type(None)
        self._wake_message: type[EngineEvents] | None = None
        #: what the folder brings that trust gates (tui.trust.inventory.FolderInventory), read after the first frame
        self.trust_inventory: Any = None
        #: (where, sentence) of every problem found at start, toasted or not (/doctor lists them)
        self.start_problems: list[tuple[str, str]] = []
        self._themes_installed = True
        from .themes import install

        install(self)  # registers and applies the themes, and gives the stylesheet their variables

    #: False while App.__init__ runs: the themes, installed right after it, set the stylesheet's variables
    _themes_installed = False

    def get_css_variables(self) -> dict[str, str]:
        """Textual's theme variables; none inside App.__init__ (its default theme's, generated to be replaced)."""
        return super().get_css_variables() if self._themes_installed else {}

    # --- composition ------------------------------------------------------------------

    def get_default_screen(self) -> Screen:
        """Textual's default screen, drawing partial updates row by row (compositor.py)."""
        from .breakpoints import preset_breakpoints
        from .compositor import use_row_compositor

        screen = super().get_default_screen()
        use_row_compositor(screen, self._terminal_model)
        preset_breakpoints(self, screen)
        return screen

    def _display(self, screen: Screen, renderable: Any) -> None:
        """Textual's display, keeping the model of what the terminal shows in step (terminal_model.py)."""
        from .compositor import track_display

        track_display(self._terminal_model, renderable)
        self.frames_drawn += renderable is not None and not self._batch_count
        super()._display(screen, renderable)

    def compose(self) -> ComposeResult:
        yield AppHeader(Path(self.options.project_dir), id="header")
        with Horizontal(id="body"):
            with Vertical(id="main"):
                yield Conversation(id="conversation", max_mounted=self.max_mounted_turns)
                yield Static("new output ↓  (End jumps to it)", id="new-output")
                yield PromptRow(id="prompt-row")
                yield QueuedMessages(id="queued")
            yield ToolPanel(id="tool-panel")
        yield StatusLine(id="status")
        yield WholeFooter()

    @property
    def session(self) -> Session:
        """The engine session; constructing it costs ~90 ms of imports, so not before the first frame."""
        if self._session is None:
            from tui.agent.session import AgentSession  # does not import the SDK

            self._session = AgentSession(self.options)
        return self._session

    @session.setter
    def session(self, session: Session) -> None:
        self._session = session

    @property
    def controller(self) -> EventController:
        """Maps engine events to widgets; built on first use, not before the first frame."""
        if self._controller is None:
            from .events import EventController

            self._controller = EventController(self)
        return self._controller

    @property
    def conversation(self) -> Conversation:
        return self.query_one("#conversation", Conversation)

    @property
    def tool_panel(self) -> ToolPanel:
        return self.query_one("#tool-panel", ToolPanel)

    @property
    def status(self) -> StatusLine:
        return self.query_one("#status", StatusLine)

    @property
    def prompt_area(self) -> PromptArea:
        return self.query_one("#prompt", PromptArea)

    def on_mount(self) -> None:
        from tui.agent.client import use_offline  # a stat or two: the first frame names what will answer

        self.show_model(self.options.model, use_offline(self.options))
        self.status.mode = self.options.permission_mode
        # the terminal is someone else's while suspended (Ctrl+Z, an external editor): what it shows is not known
        self.app_suspend_signal.subscribe(self, lambda _app: self._terminal_model.invalidate(), immediate=True)
        self.app_resume_signal.subscribe(self, lambda _app: self._terminal_model.invalidate(), immediate=True)
        if self._session is not None:  # given by the caller: listen at once
            self._attach_session()

    def _attach_session(self) -> None:
        """Subscribe to the session's events and show what it decided (offline model, mode)."""
        if self._subscription is not None:
            return
        from tui.agent.events import BlockDelta

        from .events import EngineEvents

        later_css.ensure(self)  # a session given to the app may show a turn or a dialog before the first frame
        self._delta_type, self._wake_message = BlockDelta, EngineEvents
        session = self.session
        self._subscription = session.bus.subscribe(self._forward, inline=True, name="app")
        session.wake_with(lambda text: self.call_from_thread(self._woken, text))  # an asyncRewake message
        self.show_model(session.options.model, bool(getattr(session, "offline", False)))
        self.status.mode = getattr(session.policy, "mode", "default")

    def _woken(self, text: str) -> None:
        """An asyncRewake hook's message: it starts a turn, or joins the running one, as a typed prompt would."""
        self.run_worker(self.submit_prompt(text), exit_on_error=False)

    def on_resize(self, event: events.Resize) -> None:
        """Below the smallest size the layout serves, say so instead of drawing it half (TooSmallScreen)."""
        fit_size(self, event.size.width, event.size.height)

    def on_ready(self) -> None:
        """The first frame is on screen: everything else starts from here, after this returns."""
        later_css.ensure(self)  # the turns' and the dialogs' rules
        self.call_later(self._after_first_frame)

    def _after_first_frame(self) -> None:
        """Build the session, import the SDK in a thread, warm up what later actions need."""
        if self._exit:  # quit before the first frame's work began: the widgets are going away
            return
        fit_size(self, self.size.width, self.size.height)
        gc_tuning.cap_malloc_arenas()  # before the engine's threads start; ctypes is not imported before the frame
        self._attach_session()
        self.query_one(PromptRow).add_cancel_button()
        from . import prompt_queue

        prompt_queue.install(self)  # Enter queues while a turn runs; Up and Esc take queued messages back
        from .widgets.completion import install
        from .widgets.prompt_keys import install as install_keys

        install(self)
        install_keys(self)  # vi keys, Ctrl+R, Ctrl+G, Tab for thinking, the saved prompt history
        from . import prompt_images

        prompt_images.install(self)  # chips of pasted, dropped and Ctrl+V images
        if gc_tuning.is_paused():  # collect the start-up garbage a moment later, where nobody waits on it
            self.set_timer(gc_tuning.RESUME_DELAY_S, gc_tuning.tune)
        else:
            gc_tuning.tune()
        self._prepare_engine()
        from . import commands, prompt_shortcuts, trust
        from .warmup import warm_up_first_reply

        self.run_worker(warm_up_first_reply(self), group="warm-up", exit_on_error=False)
        self.run_worker(commands.load_session_commands, thread=True, group="warm-up", exit_on_error=False)
        self.run_worker(partial(trust.check_trust, self), thread=True, group="trust", exit_on_error=False)
        self.run_worker(partial(prompt_shortcuts.after_start, self), thread=True, group="trust", exit_on_error=False)
        if self.initial_prompt:
            self.call_later(self.submit_prompt, self.initial_prompt)

    @work(thread=True, group="engine", exit_on_error=False)
    def _prepare_engine(self) -> None:
        """Import the SDK and build the client off the UI thread (≈3 s on a cold start)."""
        if getattr(self.session, "mcp", None) is not None:
            self.session.mcp.start()  # MCP servers connect in the background, after the first frame
        self.session.prepare()
        gc_tuning.tune()  # the SDK's thousands of module objects join the frozen generation

    def get_driver_class(self) -> Any:
        """Textual's driver, with unbracketed pastes joined into one Paste event (paste_input.py)."""
        from .paste_input import paste_aware

        return paste_aware(super().get_driver_class())

    async def on_event(self, event: events.Event) -> None:
        """Keys and pastes from the terminal go to a screen that vets them (a dialog) only if it admits them."""
        if isinstance(event, (events.InputEvent, events.Paste)):  # typed ahead: it may open a dialog
            later_css.ensure(self)
        if isinstance(event, (events.Key, events.Paste)) and not event.is_forwarded:
            if isinstance(event, events.Key):
                self.last_key_time = event.time
            admit = getattr(self.screen, "admit_input", None)
            if admit is not None and not admit(event):
                return
        await super().on_event(event)

    def on_unmount(self) -> None:
        self._shut_down()

    def _shut_down(self) -> None:
        """Stop listening to the engine and interrupt its turn (the DOM is going away)."""
        if self._controller is not None:
            self._controller.close()
        gc_tuning.restore()
        if self._subscription is not None:
            self._subscription.close()
            self._subscription = None
        if self._session is not None:
            self._session.wake_with(None)  # its waker held the app (every widget, strip and cache) after the close
            if (inbox := getattr(self._session, "inbox", None)) is not None:
                inbox.take_all()  # nothing queued may start a turn now
            self._session.cancel()
            if getattr(self._session, "mcp", None) is not None:  # servers end off the UI thread
                threading.Thread(target=self._session.mcp.close, name="mcp-close", daemon=True).start()
        thread_streams.release_app_streams(self)  # threads keep the print capture of their start, and this app

    def exit(self, *args: Any, **kwargs: Any) -> None:
        self._shut_down()
        super().exit(*args, **kwargs)

    # --- submitting ---------------------------------------------------------------------

    @on(PromptArea.Changed, "#prompt")
    def _prompt_changed(self, message: PromptArea.Changed) -> None:
        completer = getattr(message.text_area, "completer", None)
        if completer is not None:
            completer.update()  # the `/` and `@` menu (widgets/completion.py)

    @on(PromptArea.Submitted)
    async def _prompt_submitted(self, message: PromptArea.Submitted) -> None:
        await self.submit_prompt(message.text)

    async def submit_prompt(self, text: str) -> None:
        """Run a slash command, or start a turn with `text`."""
        if self.compacting and text.startswith(("/", "!", "#")):  # a message is queued; these wait for it
            self.prompt_area.restore(text)
            self.notify("Compacting the conversation: wait, or press Esc to cancel it.", severity="warning")
            return
        from . import commands, prompt_shortcuts

        if text.startswith("/"):
            await commands.run_slash(self, text)
            return
        from .prompt_queue import queue_while_busy

        if queue_while_busy(self, text):  # a turn runs: the message goes with its next request, or starts the next
            return
        if await prompt_shortcuts.submit(self, text):  # !cmd, #memory
            return
        if self.controller.busy:
            self.prompt_area.restore(text)
            self.notify("A turn is running: press Esc to interrupt it, or wait.", severity="warning")
            return
        await self.controller.begin_local_turn(text)
        self._submit_in_thread(text, self.take_images())

    def take_images(self) -> tuple[dict[str, Any], ...]:
        """The prompt's image chips, for the turn that starts now (prompt_images.py)."""
        images = self.prompt_area.images
        return images.take() if images is not None else ()

    @work(thread=True, group="submit", exit_on_error=False)
    def _submit_in_thread(self, text: str, images: tuple[dict[str, Any], ...] = ()) -> None:
        from . import prompt_shortcuts

        prompt_shortcuts.send_prompt(self, text, images)

    def _submit_failed(self, reason: str) -> None:
        self.controller.abort_local_turn()
        self.notify(f"The prompt was not sent: {reason}", severity="error")

    def notify(self, message: str, *, title: str = "", markup: bool = False, **kwargs: Any) -> None:
        """A toast; its text may quote the model, a file or an error, so it is shown visibly and not as markup."""
        del markup  # never markup (Widget.notify passes markup=True): the text is not ours
        kwargs["title"] = one_line(title)
        if self.notices.offer(visible(message), kwargs):  # a modal is up: shown when it closes (notice_hold.py)
            return
        super().notify(visible(message), markup=False, **kwargs)

    @cached_property
    def notices(self) -> NoticeHold:
        """The toasts held while a dialog is up (built on the first toast: not imported before the first frame)."""
        from .notice_hold import NoticeHold

        return NoticeHold(self)

    def set_busy(self, busy: bool) -> None:
        """Show the cancel button and the busy styling while a turn runs.

        The class goes on the prompt row, the only part it styles: on the app it restyled every widget
        (~20-80 ms at each turn's start and end, more as the conversation grows).
        """
        for row in self.query(PromptRow):
            row.set_busy(busy)

    # --- actions (ids and keys live in bindings.py) -------------------------------------

    @on(Button.Pressed, "#cancel")
    def _cancel_pressed(self) -> None:
        self.action_interrupt()

    def action_cycle_mode(self) -> None:
        from . import commands

        commands.cycle_mode(self)

    def action_help(self) -> None:
        from .screens.help_screen import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def record_api_event(self, event: Event) -> None:
        """Give a request/response event to the inspector (kept for it until it is first opened)."""
        if self.inspector is None:
            self._inspector_backlog.add(event)
        else:
            self.inspector.record(event)  # type: ignore[attr-defined]

    async def action_toggle_inspector(self) -> None:
        """F2: the inspector panel, built on the models kept for it; closed, it goes (inspector_backlog.py)."""
        if self.inspector is not None:
            return await self._inspector_backlog.close(self)
        inspector_module = _optional("tui.ui.widgets.inspector")
        if inspector_module is None:
            self.notify("The inspector is not available in this build.", severity="warning")
            return
        inspector = inspector_module.Inspector(project_dir=Path(self.options.project_dir), id="inspector")
        await self.query_one("#body").mount(inspector)
        self.inspector = inspector
        inspector.adopt(*self._inspector_backlog.take())
        self._inspector_backlog.restore(inspector)
        self.add_class("-show-inspector")

    def action_toggle_tools(self) -> None:
        """F3: hide or show the tool panel (next to the inspector, and below 100 columns, it is hidden by default)."""
        if self.has_class("-show-inspector") or self.screen_stack[0].has_class("-cramped"):
            self.toggle_class("-show-tools")
        else:
            self.toggle_class("-hide-tools")

    @on(Conversation.FollowChanged)
    def _follow_changed(self, message: Conversation.FollowChanged) -> None:
        self.query_one("#new-output").display = message.unseen

    def on_click(self, event: Any) -> None:
        if getattr(event.widget, "id", None) == "new-output":
            self.conversation.jump_to_bottom()

    # --- used by slash commands ---------------------------------------------------------

    def set_model(self, model: str) -> None:
        self.session.set_model(model)
        self.show_model(model, bool(getattr(self.session, "offline", False)))

    def show_model(self, model: str, offline: bool) -> None:
        """Name what answers in the header and the status line: the offline demo, whatever model is chosen."""
        header = self.query_one(AppHeader)
        header.model, header.offline = model, offline
        self.status.model_id = model
        self.status.model = OFFLINE_LABEL if offline else model

    async def clear_view(self) -> None:
        await self.conversation.clear_turns()
        self.tool_panel.clear()
        self.status.usage = dict(self.session.usage_totals)
        self.status.cost_usd = self.session.cost_usd
        self.controller.turn = None
        self.controller.view = None

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        from . import commands

        yield from super().get_system_commands(screen)
        yield from commands.system_commands(self)


def run_app(options: AgentOptions, prompt: str | None = None) -> int:
    """Run the app full screen until the user quits; returns the exit code."""
    options.interactive = True
    app = AgentApp(options, prompt=prompt)
    from tui.tools.shutdown import exit_app_on_signal

    with exit_app_on_signal(lambda code: app.exit(None, code)):  # SIGTERM/SIGHUP: leave the screen cleanly
        result = app.run()
    if app._session is not None and app._session.hooks is not None:  # SessionEnd, once the screen is restored
        app._session.cancel_event.clear()
        app._session.hooks.session_end("prompt_input_exit")
    return int(result or 0) if app.return_code in (None, 0) else int(app.return_code or 1)


if __name__ == "__main__":
    raise SystemExit(run_app(AgentOptions(offline=True, interactive=True)))
