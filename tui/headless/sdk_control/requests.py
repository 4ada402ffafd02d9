"""The control requests the Agent SDK sends agent-tui, each answered with a result or one sentence.

Handled: `initialize` (hooks as Python callbacks), `interrupt`, `set_permission_mode`, `set_model`,
`mcp_status`, `mcp_reconnect`, `mcp_toggle`, `stop_task`. Answered with an error that says why:
`get_context_usage`, `rewind_files`, and any subtype agent-tui does not know (tui/headless/stream_input.py).
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any

from tui import __version__
from tui.agent.events import Notice
from tui.headless.stream_input import ControlRefused

from .channel import ControlChannel
from .hooks import hook_specs, register

if TYPE_CHECKING:
    from tui.agent.door import Session

#: initialize fields agent-tui cannot honour, with why
UNSUPPORTED_INIT = {
    "agents": "agents defined in the SDK options are not supported by agent-tui (its agents come from "
    ".claude/agents and .agent-tui/agents files)",
    "skills": "a skills list is not supported by agent-tui (it offers every skill it finds)",
    "excludeDynamicSections": "exclude_dynamic_sections is not supported by agent-tui (it has no preset sections)",
    "systemPromptSnapshot": "snapshot is not supported by agent-tui (its system prompt is never recorded apart)",
}
REFUSED = {
    "get_context_usage": "get_context_usage is not supported by agent-tui; the result line's usage and "
    "cost_breakdown say what each turn used",
    "rewind_files": "rewind_files is not supported by agent-tui over the control protocol (its checkpoints are "
    "restored with /rewind in the app)",
}


class SdkRequests:
    """Handlers for the SDK's control requests, for one session."""

    def __init__(self, session: Session, channel: ControlChannel) -> None:
        self.session = session
        self.channel = channel
        self.initialized = False
        #: whether a turn runs now (the headless runner sets it): an interrupt while idle changes nothing
        self.turn_running: Any = lambda: False
        #: set by the headless runner when the run is over
        self.finished = threading.Event()
        #: user lines refused (each answered with an error result while no turn ran)
        self.refused_prompts = 0
        #: the model at start, for `set_model(None)` (the default)
        self.first_model = session.options.model

    def handlers(self) -> dict[str, Any]:
        """subtype -> handler, for StreamJsonInput.controls."""
        found: dict[str, Any] = {
            "initialize": self.initialize,
            "interrupt": self.interrupt,
            "set_permission_mode": self.set_permission_mode,
            "set_model": self.set_model,
            "mcp_status": self.mcp_status,
            "mcp_reconnect": self.mcp_reconnect,
            "mcp_toggle": self.mcp_toggle,
            "stop_task": self.stop_task,
        }
        for subtype, why in REFUSED.items():
            found[subtype] = _refuser(why)
        return found

    def initialize(self, request: dict[str, Any]) -> dict[str, Any]:
        """Register the SDK's hook callbacks; what agent-tui offers (commands, model, styles)."""
        refusals = [why for key, why in UNSUPPORTED_INIT.items() if request.get(key) not in (None, False, {}, [])]
        if refusals:
            raise ControlRefused("; ".join(refusals))
        if self.initialized:
            raise ControlRefused("initialize was already done for this agent-tui process")
        register(self.session, hook_specs(request.get("hooks")), self.channel)
        self.initialized = True
        catalog = getattr(self.session, "catalog", None)
        commands = [
            {"name": c.name, "description": c.description, "argumentHint": c.argument_hint}
            for c in (catalog.commands.values() if catalog is not None else ())
        ]
        model = self.session.options.model
        return {
            "commands": commands,
            "output_style": "default",
            "available_output_styles": ["default"],
            "models": [{"value": model, "displayName": model, "description": "the model of this session"}],
            "pid": os.getpid(),
            "agent_tui_version": __version__,
        }

    def interrupt(self, request: dict[str, Any]) -> dict[str, Any]:
        """End the running turn as Esc does (its result line says `interrupted`); idle, nothing happens."""
        if self.turn_running():
            self.session.cancel()
        return {}

    def set_permission_mode(self, request: dict[str, Any]) -> dict[str, Any]:
        mode = request.get("mode")
        if problem := self.session.set_permission_mode(mode, "the Agent SDK"):
            raise ControlRefused(f"set_permission_mode: {problem}")
        self.session.publish(Notice(level="info", text=f"Permission mode set to {mode} by the Agent SDK."))
        return {}

    def set_model(self, request: dict[str, Any]) -> dict[str, Any]:
        model = request.get("model")
        if model is not None and (not isinstance(model, str) or not model.strip()):
            raise ControlRefused("set_model: the model must be a model id or null (the default)")
        from tui.providers.config import canonical_model

        chosen = canonical_model(model.strip()) if model else self.first_model
        self.session.set_model(chosen)  # from the next request, as /model does
        self.session.publish(Notice(level="info", text=f"Model set to {chosen} by the Agent SDK."))
        return {}

    def mcp_status(self, request: dict[str, Any]) -> dict[str, Any]:
        mcp = self.session.mcp
        if mcp is None:
            return {"mcpServers": []}
        servers = []
        for state in mcp.manager.states.values():
            entry: dict[str, Any] = {
                "name": state.name,
                "status": state.status,
                "config": state.config.to_json(),
                "scope": state.config.source,
                "tools": [{"name": t.get("name"), "description": t.get("description")} for t in state.tools],
            }
            if state.error:
                entry["error"] = state.error
            if state.server_info:
                name, _, version = state.server_info.partition(" ")
                entry["serverInfo"] = {"name": name, "version": version}
            servers.append(entry)
        return {"mcpServers": servers}

    def _server(self, request: dict[str, Any], subtype: str) -> str:
        name = request.get("serverName")
        mcp = self.session.mcp
        if mcp is None or name not in mcp.manager.states:
            known = ", ".join(mcp.manager.states) if mcp is not None else "none"
            raise ControlRefused(f"{subtype}: there is no MCP server named {name!r} (configured: {known or 'none'})")
        return str(name)

    def mcp_reconnect(self, request: dict[str, Any]) -> Future[dict[str, Any]]:
        name = self._server(request, "mcp_reconnect")
        return _in_background(lambda: self.session.mcp.manager.reconnect(name))

    def mcp_toggle(self, request: dict[str, Any]) -> Future[dict[str, Any]]:
        name = self._server(request, "mcp_toggle")
        enabled = request.get("enabled")
        if not isinstance(enabled, bool):
            raise ControlRefused('mcp_toggle: "enabled" must be true or false')
        return _in_background(lambda: self.session.mcp.manager.set_enabled(name, enabled))

    def stop_task(self, request: dict[str, Any]) -> dict[str, Any]:
        task_id = request.get("task_id")
        tasks = self.session.state.tasks
        if not isinstance(task_id, str) or tasks.get(task_id) is None:
            raise ControlRefused(f"stop_task: there is no background task {task_id!r}")
        tasks.stop(task_id)
        return {}


def _refuser(why: str) -> Any:
    def refuse(request: dict[str, Any]) -> dict[str, Any]:
        raise ControlRefused(why)

    return refuse


def _in_background(work: Any) -> Future[dict[str, Any]]:
    """Run `work` off the input reader's thread (it may wait on the SDK's own answers); answers `{}` when done."""
    future: Future[dict[str, Any]] = Future()

    def run() -> None:
        try:
            work()
        except Exception as exc:  # noqa: BLE001 - the client gets it as the error answer
            future.set_exception(exc)
        else:
            future.set_result({})

    threading.Thread(target=run, name="sdk-control", daemon=True).start()
    return future
