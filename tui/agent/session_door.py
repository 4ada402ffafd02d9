"""The front door's operations that change a session (door.py): each does the whole change a front end asked for.

A front end never assigns an engine attribute; it calls one of these (or another operation of
`tui.agent.door.Session`). `DoorMixin` is part of AgentSession; `_Host` names what its methods
touch, typed, so the mixin re-declares nothing as `Any`.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast

if TYPE_CHECKING:
    import threading
    from collections.abc import Iterable

    from tui.agent.context.context import ContextTracker
    from tui.agent.history.rewind import FileStep, Mode, RewindEntry, RewindResult
    from tui.agent.history.transcript import Transcript
    from tui.agent.history.undo import UndoPlan
    from tui.agent.loop.dispatch import Dispatcher
    from tui.config.hooks_config import HookSpec
    from tui.config.memory import ImportCheck, SkippedImport
    from tui.hooks.commands import Catalog
    from tui.mcp.config import McpServerConfig
    from tui.mcp.runtime import McpRuntime
    from tui.tools.attachments import AttachmentRules
    from tui.tools.base import SessionState, ToolContext

    from .hook_points import SessionHooks
    from .options import AgentOptions
    from .session import AgentSession

#: how the Agent SDK's control channel sends a request (tui/headless/sdk_control/channel.py: ControlChannel.request)
SdkRequest = Callable[[dict[str, Any]], "Future[dict[str, Any]]"]
#: how a callback hook is run: (the hook's run, the cancel event) (tui/config/hooks_config.py: HookConfig.invoke)
HookInvoke = Callable[[Any, Any], None]


class _Host(Protocol):
    """What the door's operations read and change of AgentSession."""

    options: AgentOptions
    messages: list[dict[str, Any]]
    _before_prompt: tuple[int, dict[str, Any] | None]
    _system_cache: tuple[str, list[dict[str, Any]]] | None
    _tool_defs: list[dict[str, Any]] | None
    hook_context: list[dict[str, Any]]
    state: SessionState
    dispatcher: Dispatcher
    hooks: SessionHooks | None
    mcp: McpRuntime | None
    tool_search: Any
    transcript: Transcript | None
    session_id: str
    context: ContextTracker
    waker: Callable[[str], object] | None

    @property
    def policy(self) -> Any: ...

    def fork_transcript(self) -> Path: ...
    def client(self) -> Any: ...
    def _tool_context(self, tool_use_id: str) -> ToolContext: ...


def _session(host: _Host) -> AgentSession:
    """The host as what it is, an AgentSession, for the parts that take the whole session."""
    return cast("AgentSession", host)


class DoorMixin:
    """AgentSession's operations for front ends that change it (the rest are on AgentSession and its mixins)."""

    def set_model(self: _Host, model: str) -> None:
        """/model, the Agent SDK's set_model: `model` answers from the next request (the system prompt follows it)."""
        self.options.model = model

    def wake_with(self: _Host, waker: Callable[[str], object] | None) -> None:
        """How a front end starts a turn the session itself asks for (an asyncRewake hook's message)."""
        self.waker = waker

    def set_thinking(self: _Host, on: bool) -> None:
        """/think: extended thinking on or off from the next request (the caller checks the model allows it)."""
        self.options.thinking = on

    def set_effort(self: _Host, level: str | None) -> None:
        """/effort: how much effort the model spends from the next request; None is the model's default."""
        self.options.effort = level

    def add_hook_context(self: _Host, blocks: list[dict[str, Any]]) -> None:
        """Context blocks (a SessionStart hook's, after the folder was trusted) that go with the next prompt."""
        self.hook_context += blocks

    def attach_editor(self: _Host, editor: Any) -> None:
        """Files are read and written through `editor` (ACP's client `fs/*`; SessionState.editor)."""
        self.state.editor = editor

    def tool_context(self: _Host, tool_use_id: str) -> ToolContext:
        """The context a tool call runs in (its project, state and paths), for a front end resolving its paths."""
        return self._tool_context(tool_use_id)

    def resend_from(self: _Host, history: list[dict[str, Any]]) -> None:
        """Fork into a new session holding `history` (an edited request and its answer); the old file stays as it was."""
        from tui.agent.history.history_check import sanitize_history

        history, _ = sanitize_history(history)  # what the API accepts: an edited answer may leave a call unanswered
        old = self.session_id
        if self.options.transcript:
            self.fork_transcript()
        self.messages = history
        self._before_prompt = (len(history), history[-1] if history else None)
        self.context.reset()
        if self.transcript:
            reason = f"continued from an edited request of {old}"
            self.transcript.write({"type": "history", "reason": reason, "messages": history})

    def answer_through_front_end(self: _Host) -> None:
        """A question (AskUserQuestion, a permission) goes to the front end instead of being refused (`-p` + SDK)."""
        self.dispatcher.interactive = True

    def reach_sdk_servers(self: _Host, request: SdkRequest) -> None:
        """`"type": "sdk"` MCP servers are reached through the Agent SDK's control channel (`request`)."""
        if self.mcp is not None:
            self.mcp.manager.sdk_channel = request

    def add_hooks(self: _Host, specs: list[HookSpec], invoke: HookInvoke) -> None:
        """Put callback hooks (the Agent SDK's) in force for the rest of the run, beside the settings files' hooks."""
        from tui.hooks.config import HookConfig

        from .hook_points import SessionHooks

        config = self.options.hooks
        if config is None:
            config = self.options.hooks = HookConfig([], trusted=bool(getattr(self.policy, "trusted", False)))
        config.hooks = [*config.hooks, *specs]
        config.invoke = invoke
        if self.hooks is None:
            self.hooks = self.dispatcher.hooks = SessionHooks(_session(self), config)

    def start_mcp(self: _Host) -> McpRuntime:
        """The session's MCP runtime, started empty when it has none yet (servers added later: /mcp, plugins)."""
        runtime = self.mcp
        if runtime is None:
            from tui.mcp.tool_search import ToolSearch

            from .mcp_link import mcp_runtime

            self.options.mcp_servers = []
            runtime = self.mcp = mcp_runtime(_session(self))
            self.tool_search = ToolSearch(on_load=lambda: setattr(self, "_tool_defs", None))
        return runtime

    def start_mcp_servers(
        self: _Host, servers: Iterable[McpServerConfig], disabled: Iterable[McpServerConfig] = ()
    ) -> list[str]:
        """Connect `servers` (in the background) unless already there, list `disabled` ones; the names started."""
        from .mcp_link import start_servers

        return start_servers(_session(self), servers, disabled)

    def stream_request(self: _Host, body: dict[str, Any]) -> Any:
        """Send exactly `body` (a recorded request, edited) and stream the answer: the SDK's stream manager."""
        from tui.agent.api.request import sdk_params

        return self.client().messages.stream(**sdk_params(body))

    def resume(self: _Host, target: str | Path, fork: bool = False) -> Any:
        """Continue a saved session of this project (id, id prefix or path), or a copy of it; see resume.py."""
        from tui.agent.history.session_resume import resume_into

        if self.hooks is not None:
            self.hooks.start_source = "resume"
        return resume_into(_session(self), target, fork)

    def compact(self: _Host, focus: str = "") -> Any:
        """Summarise older turns now (/compact); blocking, call it off the UI thread."""
        from tui.agent.context.compaction import compact

        return compact(_session(self), focus)

    # --- what takes the whole session: history and time travel, memory, settings put in force ---------------

    def rewind_entries(self: _Host) -> list[RewindEntry]:
        """/rewind's list: the prompts that can be gone back to, newest first (rewind.py)."""
        from tui.agent.history.rewind import rewind_entries

        return rewind_entries(_session(self))

    def rewind_plan(self: _Host, entry: RewindEntry) -> list[FileStep]:
        """What rewinding the code to `entry` would do to each file, for the user to choose."""
        from tui.agent.history.rewind import plan

        return plan(_session(self), entry)

    def rewind(
        self: _Host, entry: RewindEntry, mode: Mode, steps: list[FileStep] | None = None, overwrite: bool = True
    ) -> RewindResult:
        """Go back to `entry`: the conversation, the code or both (rewind.py)."""
        from tui.agent.history.rewind import rewind

        return rewind(_session(self), entry, mode, steps, overwrite)

    def undo_plan(self: _Host) -> UndoPlan:
        """What /undo would restore: the files the last prompt changed (undo.py)."""
        from tui.agent.history.undo import plan_undo

        return plan_undo(_session(self))

    def undo(self: _Host, plan: UndoPlan) -> list[str]:
        """/undo: put back the files `plan` names; the lines that say what was done (undo.py)."""
        from tui.agent.history.undo import apply_undo

        return apply_undo(plan)

    def write_file(self: _Host, path: Path, content: str, cancel: threading.Event) -> tuple[str, bool]:
        """/init's write: a Write call the rules, the mode and the dialog decide; (result text, is_error)."""
        from tui.agent.prompt.user_calls import write_with_permission

        return write_with_permission(_session(self), path, content, cancel)

    def prompt_catalog(self: _Host, reload: bool = False) -> Catalog:
        """The commands and skills of this session; `reload` reads their folders again (a file added since)."""
        from tui.agent.prompt.catalog import reload_catalog, session_catalog

        return reload_catalog(_session(self)) if reload else session_catalog(_session(self))

    def attachment_rules(self: _Host, can_ask: bool) -> AttachmentRules:
        """The rules an `@` mention or a pasted path meets here (the Read tool's); `can_ask` if someone can answer."""
        from tui.agent.prompt.catalog import attachment_rules

        return attachment_rules(_session(self), can_ask)

    def ask_to_attach(self: _Host, attachment: Any, cancel: threading.Event) -> bool:
        """Ask the user whether `attachment` (outside what the rules allow) may be attached; False when cancelled."""
        from tui.agent.loop.permission_gate import ask_to_attach

        return ask_to_attach(_session(self), attachment, cancel)

    def reload_agents(self: _Host) -> Callable[[], object] | None:
        """The folder's trust changed: the Agent tool reads its definitions again. Returns the slow part (reading
        every file, each one that cannot be used said) to run off the UI thread; None without an Agent tool."""
        from .subagents import AgentTool

        tool = next((t for t in _session(self).tools if isinstance(t, AgentTool)), None)
        if tool is None:
            return None
        tool.reload()
        return tool.definitions

    def export(self: _Host, destination: str | Path | None = None) -> tuple[Path, Path | None]:
        """/export: the conversation as Markdown (and its raw records), in `destination` or .agent-tui/exports."""
        from tui.agent.history.export import export_session

        return export_session(_session(self), destination)

    def context_map(self: _Host) -> dict[str, Any]:
        """/context's figures: what fills the window, part by part (context_map.py)."""
        from tui.agent.context.map import context_map

        return context_map(_session(self))

    def memory_check(self: _Host) -> ImportCheck:
        """How this session decides which memory imports are read (memory_imports.py), for /memory."""
        from tui.agent.context.memory_imports import session_memory_check

        return session_memory_check(_session(self))

    def pending_memory_imports(self: _Host) -> list[SkippedImport]:
        """The memory imports from outside the project still waiting for the user's answer."""
        from tui.agent.context.memory_imports import pending_external

        return pending_external(_session(self))

    def apply_hooks(self: _Host, hooks: list[Any], trusted: bool) -> None:
        """/hooks: the settings files' hooks as they are now, in force from the next event (hook_points.py)."""
        from .hook_points import apply_hooks

        apply_hooks(_session(self), hooks, trusted)

    def apply_plugins(self: _Host, loaded: Any) -> list[str]:
        """Put the plugins the settings (`loaded`) enable in force now; the sentences to show (plugins_live.py)."""
        from .plugins_live import apply_plugins

        return apply_plugins(_session(self), loaded)
