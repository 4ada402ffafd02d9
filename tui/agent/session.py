"""One conversation: its history, usage, tools, permissions, transcript and worker thread.

The app and the headless runner drive a session through `submit` / `cancel` and read
what happens from `bus`. Constructing a session is cheap: the SDK is imported in
`prepare()` (or on the first turn), never on the caller's critical path.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import partial
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui.agent.api.request import build_system, build_tools
from tui.agent.context.context import ContextTracker
from tui.agent.context.path_rules import PathRules, rule_blocks
from tui.agent.context.pins import PinMixin
from tui.agent.cost.cost import CostLedger
from tui.agent.cost.pricing import add_usage, usage_cost
from tui.agent.events.bus import EventBus
from tui.agent.history.session_transcript import TranscriptMixin
from tui.agent.history.transcript import Transcript, new_session_id
from tui.agent.loop.approvals import approval_text, front_end_of
from tui.agent.loop.dispatch import Dispatcher
from tui.agent.loop.tool_belt import ask_user, configure_tools, offered_here, publish_changes
from tui.tools.base import SessionState, Tool, ToolContext
from tui.tools.cancel_signal import CancelSignal

from .client import make_client, profile_model, use_offline
from .events import Event, FileChangedOutside, Notice
from .inbox import Inbox, joined
from .options import AgentOptions
from .permission_mode import ModeMixin
from .session_defaults import default_policy, default_tools
from .session_door import DoorMixin
from .session_history import NOT_EXECUTED_TEXT, HistoryMixin, Turn, last_text  # noqa: F401  (named here too)

if TYPE_CHECKING:
    from tui.agent.prompt.pipeline import Extra, PromptSource, Submitted


class _CheckpointHook:
    """What the tools see of the session's checkpoints (opened only when a file is first written)."""

    def __init__(self, session: AgentSession) -> None:
        self.session = session

    def before_write(self, path: str | Path, previous: bytes | None, data: bytes | None) -> None:
        self.session.checkpoints.before_write(path, previous, data)

    def wrote(self, path: str | Path) -> None:
        self.session.checkpoints.wrote(path)

    def write_failed(self) -> None:
        self.session.checkpoints.write_failed()


class AgentSession(HistoryMixin, TranscriptMixin, PinMixin, ModeMixin, DoorMixin):
    """A conversation with the model, run one turn at a time on a worker thread."""

    #: the loop path its events carry (a subagent's is `main/<alias>`; see subagents.py)
    loop_path = "main"

    def __init__(
        self,
        options: AgentOptions,
        bus: EventBus | None = None,
        *,
        tools: list[Tool] | None = None,
        policy: Any = None,
    ) -> None:
        self.options = options
        options.project_dir = Path(options.project_dir).resolve()
        self.bus = bus or EventBus()
        self.tools: list[Tool] = tools if tools is not None else default_tools()
        configure_tools(self.tools, options)
        self.policy = policy if policy is not None else default_policy(options)
        from tui.agent.prompt.catalog import attach_catalog  # custom commands and skills (+ the Skill tool)

        self.catalog = attach_catalog(self, add_tool=tools is None)
        self.state = SessionState(project_dir=options.project_dir, extra_dirs=options.add_dirs)
        self.messages: list[dict[str, Any]] = []
        self.usage_totals: dict[str, int] = {}
        self.cost_usd = 0.0
        #: every response priced and attributed (cost.py); a subagent shares its parent's
        self.costs = CostLedger()
        self.denials: list[dict[str, Any]] = []
        self.cancel_event: threading.Event = CancelSignal()  # a CancelSignal: a waiting question hears it
        #: messages the user sends while a turn runs (steered into it, or the next prompt)
        self.inbox = Inbox(self.publish)
        self.turn_count = 0
        self.offline = use_offline(options)
        if options.profiles:
            from tui.providers.profiles import use_profiles

            use_profiles(options.profiles)  # prices, windows and messages look `NAME:MODEL` up there
        self.memory_text = ""
        #: the memory files memory_text was built from (tui.config.memory.MemoryFile), for /memory
        self.memory_files: list[Any] = []
        #: `.claude/rules` files with `paths:` and subfolders' memory: waiting for a file, or sent after a tool result
        self.path_rules = PathRules()
        self._memory_compacted = False  # the next memory load follows a compaction (InstructionsLoaded's reason)
        #: starts a turn with a text the engine brings (wake_with); None: -p runs such turns itself
        self.waker: Callable[[str], object] | None = None
        #: the memory files and imports kept out (tui.config.memory.SkippedImport), and those already named
        self.memory_skipped: list[Any] = []
        self.memory_told: set[str] = set()
        #: prompts kept verbatim through every compaction (/pin, `#pin`)
        self.pins: list[str] = []
        #: each compaction: its summary, plan and what it dropped (compaction.py), for /context
        self.compactions: list[dict[str, Any]] = []
        self._client: Any = None
        self._owns_client = False  # built here (a subagent's is its parent's, closed by the parent)
        self._client_lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._system_cache: tuple[str, list[dict[str, Any]]] | None = None
        self._tool_defs: list[dict[str, Any]] | None = None
        #: the permission mode the system prompt names (a change later is told in a reminder, tool_belt.py)
        self.told_mode = ""
        self._watcher: Any = None
        self.dispatcher = Dispatcher(
            {t.name: t for t in self.tools},
            self.policy,
            self._tool_context,
            self.publish,
            interactive=options.interactive,
            parallel=options.parallel_tools,
        )
        self.context = ContextTracker(self)
        #: the tools every turn has; MCP tools join them between turns (sync_mcp)
        self.base_tools: list[Tool] = list(self.tools)
        self.mcp: Any = None
        self.tool_search: Any = None
        if options.mcp_servers:
            from .mcp_link import mcp_runtime

            self.mcp = mcp_runtime(self)
            from tui.mcp.tool_search import ToolSearch  # MCP tools too big for the window wait behind ToolSearch

            self.tool_search = ToolSearch(on_load=lambda: setattr(self, "_tool_defs", None))
        publish_changes(self.state.tasks, self.publish)
        self.state.tasks.output_limit = max(0, options.background_output_limit_mb) * 1024 * 1024
        if options.interactive:  # AskUserQuestion and ExitPlanMode need someone to ask
            self.state.ask_user = partial(ask_user, self)
        if not self.offline:  # offline, WebFetch summarises the page itself
            self.state.side_query = lambda prompt: import_module("tui.agent.api.side_query").side_query(self, prompt)
        #: the hooks of this session (None without any: then nothing of tui.hooks is imported)
        self.hooks: Any = None
        if options.hooks is not None:
            from .hook_points import hooks_for

            self.hooks = self.dispatcher.hooks = hooks_for(self)
        #: context blocks from hooks (SessionStart) that go with the next prompt
        self.hook_context: list[dict[str, Any]] = []
        self._checkpoints: Any = None
        self.state.checkpoint = _CheckpointHook(self)
        self.dispatcher.watch_tool = self._watch_tool
        self.dispatcher.file_rules = partial(rule_blocks, self)
        self.session_id = options.session_id or new_session_id()
        self.transcript: Transcript | None = None
        self._transcript_sub: Any = None
        #: what resuming said (warnings, notes), kept for an app that starts after it
        self.resume_notices: list[Notice] = []
        #: `subagent` transcript records linking each subagent's own file (kept across resume and fork)
        self.subagent_links: list[dict[str, Any]] = []
        #: the history's length and last message before the current turn's prompt
        self._before_prompt: tuple[int, dict[str, Any] | None] = (0, None)
        self._open_transcript()
        #: the language servers (tui.lsp.manager.LspManager) when any is configured or on PATH
        self.lsp: Any = None
        if tools is None and options.lsp is not None:
            from .lsp_link import attach_lsp

            attach_lsp(self)
        if tools is None and options.max_subagent_depth > 0:
            from .subagents import attach_agent_tool

            attach_agent_tool(self)
        if options.tool_names is not None:  # --tools: only the built-in tools named
            self.keep_tools(options.tool_names)
        if self.loop_path == "main":
            for attach in options.on_session:
                attach(self)

    def keep_tools(self, names: list[str]) -> None:
        """Offer only the built-in tools in `names` (MCP tools join later, as always)."""
        self.tools = [t for t in self.tools if t.name in names]
        self.base_tools = list(self.tools)
        self.dispatcher.tools = {t.name: t for t in self.tools}
        self._tool_defs = None

    # --- plumbing ----------------------------------------------------------------------

    @property
    def pricing_model(self) -> str:
        """The model whose prices apply: the offline demo model costs nothing, whatever it is called."""
        return "offline-demo" if self.offline and not profile_model(self.options) else self.options.model

    def publish(self, event: Event) -> None:
        self.bus.publish(event)

    @property
    def checkpoints(self) -> Any:
        """This session's checkpoints (checkpoints.py), opened on first use and again when the id changes."""
        from tui.agent.history.checkpoints import open_for

        return open_for(self)

    def _watch_tool(self, tool: Tool) -> Any:
        if tool.kind != "exec":
            return None
        from tui.agent.history.checkpoint_bash import watch_command

        return watch_command(self.checkpoints)

    def _tool_context(self, tool_use_id: str) -> ToolContext:
        return ToolContext(project_dir=self.options.project_dir, state=self.state, tool_use_id=tool_use_id)

    def reload_policy(self) -> None:
        """Re-read settings and rules (after the folder was trusted), keeping the current mode."""
        mode = getattr(self.policy, "mode", self.options.permission_mode)
        self.policy = default_policy(self.options)
        self.policy.mode = mode
        self.dispatcher.policy = self.policy
        if self.hooks is not None:  # the folder's own hooks run once it is trusted
            self.hooks.config.trusted = bool(getattr(self.policy, "trusted", False))

    def prepare(self) -> None:
        """Import the SDK and the loop, build the client (about a second); safe to call twice."""
        self.client()
        import_module(".loop", __package__)  # the first turn would import it (~20 ms with its modules)
        self._start_watcher()
        if self.hooks is not None:
            self.hook_context += self.hooks.session_start()

    def client(self) -> Any:
        with self._client_lock:
            if self._client is None:
                self._client = make_client(self.options)
                self._owns_client = True
            return self._client

    def _start_watcher(self) -> None:
        if self._watcher is not None:
            return
        try:
            from tui.tools.freshness import FileWatcher
        except ImportError:
            return
        try:
            self._watcher = FileWatcher(self.state, lambda path: self.publish(FileChangedOutside(path=path)))
            self._watcher.start()
        except Exception as exc:  # live file tracking is a convenience, never a reason to fail
            self.publish(Notice(level="warning", text=f"File watching is off: {exc}"))
            self._watcher = False

    def system_blocks(self) -> list[dict[str, Any]]:
        """system[]: computed once per model so the cached prefix stays byte-identical."""
        model = self.options.model
        if self._system_cache is None or self._system_cache[0] != model:
            if not self.memory_text:
                self.memory_text = self._load_memory()
            self._system_cache = (
                model,
                build_system(
                    self.options.project_dir,
                    model,
                    self.memory_text,
                    self.options.add_dirs,
                    instructions=self.options.system_prompt,
                    append=self.options.append_system_prompt,
                    approvals=self.approvals(),
                ),
            )
        return self._system_cache[1]

    def reload_memory(self, compacted: bool = False) -> None:
        """Read the memory files again for the next request (after `#text`, /init or a compaction)."""
        self.memory_text = ""
        self._system_cache = None
        self._memory_compacted = compacted

    def add_directory(self, path: Path) -> None:
        """/add-dir: `path` is part of the project for the tools and the system prompt from the next request."""
        self.options.add_dirs.append(path)  # the session's state and permission policy share this list
        self._system_cache = None
        if self.hooks is not None:
            self.hooks.directory_added(str(path))

    def _load_memory(self) -> str:
        try:
            from tui.agent.context.memory_imports import load_session_memory
        except ImportError:
            return ""
        try:
            text = load_session_memory(self)
            if self.hooks is not None and self.loop_path == "main":  # a subagent's copy is not a new load
                self.hooks.instructions_loaded(self.memory_files, self._memory_compacted)
            self._memory_compacted = False
            return text
        except Exception as exc:
            self.publish(Notice(level="warning", text=f"Memory files were not loaded: {exc}"))
            return ""

    def sync_mcp(self, prompt: str) -> None:
        """Before a turn's first request: wait for the MCP servers it needs, take their tools, attach `@server:uri`."""
        if self.mcp is None:
            return
        tools = self.mcp.before_turn(prompt, self.cancel_event, wait_all=not self.options.interactive)
        if tools is not None:
            self.tools = [*self.base_tools, *tools]
            self.dispatcher.tools = {t.name: t for t in self.tools}
            self._tool_defs = None
        blocks = self.mcp.attachments(prompt, self.cancel_event)
        if blocks and self.messages and self.messages[-1].get("role") == "user":
            self.messages[-1] = {"role": "user", "content": [*self.messages[-1]["content"], *blocks]}
            if self.transcript:
                self.transcript.write({"type": "merge_user", "message": self.messages[-1]})

    def tool_definitions(self) -> list[dict[str, Any]]:
        if self._tool_defs is None:
            definitions = [t.definition() for t in self.tools if self._offered(t)]
            if self.tool_search is not None:
                definitions = self.tool_search.definitions(
                    {t.name for t in self.base_tools}, definitions, self.context.window()
                )
                if self.tool_search.active:
                    self.dispatcher.tools.setdefault(self.tool_search.tool.name, self.tool_search.tool)
            self._tool_defs = build_tools(definitions)
        return self._tool_defs

    @property
    def front_end(self) -> str:
        """The front end: "app", "print" (-p), "acp" or "sdk" (approvals.py)."""
        return front_end_of(self.options.front_end, self.options.interactive)

    def approvals(self) -> str:
        """The environment's sentence on who approves calls; the mode it names is the one later reminders compare to."""
        mode = str(getattr(self.policy, "mode", "default"))
        self.told_mode = mode
        allowed = self.options.allowed_tools
        return approval_text(self.front_end, mode, can_ask=self.dispatcher.interactive, allowed=allowed)

    def _offered(self, tool: Tool) -> bool:
        """Tools that cannot work here are left out of tools[] (offered_here); so are server tools (WebSearch)
        that a rule or the mode denies."""
        named = self.options.tool_names is not None and tool.name in self.options.tool_names  # --tools
        if not offered_here(tool.name, self.front_end, can_answer=self.state.ask_user is not None, named=named):
            return False
        if not getattr(tool, "server_tool", False):
            return True
        return bool(self.policy.check(tool, {}, self._tool_context("")).decision != "deny")

    def record_usage(self, usage: dict[str, Any], measure_context: bool = True, model: str | None = None) -> None:
        add_usage(self.usage_totals, usage)
        self.cost_usd += usage_cost(usage, model or self.pricing_model)
        if measure_context:
            self.context.observe(usage)

    def end_turn(self, turn: Turn) -> None:
        pass

    # --- driving -----------------------------------------------------------------------

    @property
    def running(self) -> bool:
        thread = self._thread
        return thread is not None and thread.is_alive()

    def run_turn(self, prompt: str, images: tuple[dict[str, Any], ...] = ()) -> None:
        """Run one turn on the calling thread (headless mode and tests); `images` go with the prompt."""
        from tui.agent.loop.loop import run_turn

        self.cancel_event.clear()
        if self.hooks is not None:
            self.hook_context += self.hooks.session_start()
        run_turn(self, prompt, images)

    def run_turns(self, prompt: str, images: tuple[dict[str, Any], ...] = ()) -> None:
        """Run a turn, then one for the messages still queued when it ended, until none wait."""
        self.inbox.activate()
        try:
            while True:
                self.run_turn(prompt, images)
                batch = self.inbox.next_batch()
                if not batch:
                    return
                prompt, images = joined(batch), ()
        finally:
            if self._thread is threading.current_thread():
                # a finished thread keeps the sys.stderr of its start (a front end's capture, and the app with it)
                self._thread = None

    def submit(self, prompt: str, images: tuple[dict[str, Any], ...] = ()) -> None:
        """Start one turn on a worker thread (and the turns of messages queued meanwhile); `images` go with it."""
        if self.running and (self.inbox.active or not self.wait(1.0)):  # else its thread is just ending
            raise RuntimeError("A turn is already running; wait for it or cancel it first.")
        self.inbox.activate()
        self._thread = threading.Thread(target=self.run_turns, args=(prompt, images), name="agent-loop", daemon=True)
        self._thread.start()

    def run_prompt(
        self,
        text: str,
        *,
        source: PromptSource,
        images: tuple[dict[str, Any], ...] = (),
        extra: Extra | None = None,
        before_turn: Callable[[], None] | None = None,
    ) -> Submitted:
        """What the user sent, through the one prompt pipeline (prompt_pipeline.py): commands, `@` files, the turn."""
        from tui.agent.prompt.pipeline import run_prompt

        return run_prompt(self, text, source=source, images=images, extra=extra, before_turn=before_turn)

    def cancel(self) -> None:
        """Interrupt the running turn: the stream is abandoned, tools stop, questions are denied."""
        self.cancel_event.set()

    def wait(self, timeout: float | None = None) -> bool:
        thread = self._thread
        if thread is None:
            return True
        thread.join(timeout)
        return not thread.is_alive()

    def clear(self) -> None:
        """Start a new conversation with a new transcript."""
        if self.running:
            raise RuntimeError("Cannot clear while a turn is running.")
        self.messages = []
        self._before_prompt = (0, None)
        self.usage_totals = {}
        self.cost_usd = 0.0
        self.costs = CostLedger()
        self.turn_count = 0
        self.subagent_links = []
        self.pins = []
        self.compactions = []
        self.state.read_hashes.clear()
        self.state.todos.clear()
        self.context.reset()
        if self.hooks is not None:
            self.hooks.session_end_in_background("clear")
            self.hooks.start_source = "clear"
        self.close_transcript()
        self.session_id = new_session_id()
        self._open_transcript()

    def close(self, reason: str = "other") -> None:
        self.inbox.take_all()  # nothing queued may start a turn now
        self.cancel()
        self.wait(5)
        if self.hooks is not None:
            self.cancel_event.clear()  # SessionEnd hooks run to their end even after an interrupt
            self.hooks.session_end(reason)
        self.state.tasks.stop_all()
        self.close_transcript()
        if self._watcher:
            try:
                self._watcher.stop()
            except Exception:
                pass
        self.dispatcher.close()
        if self.lsp is not None and self.loop_path == "main":  # a subagent's servers are its parent's
            self.lsp.close()
        if self.mcp is not None:
            self.mcp.close()
        if self._checkpoints is not None:  # the manifest's descriptor and the inotify watch
            self._checkpoints.close()
        if self._owns_client and self._client is not None:  # its pooled connections (a descriptor each)
            try:
                self._client.close()
            except Exception:
                pass
            self._client, self._owns_client = None, False
        if self.loop_path == "main":  # with no command of ours left: the spawn thread and the guard end too
            from tui.tools.processes import tracker

            tracker().release_helpers()
