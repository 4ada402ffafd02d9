"""Language servers in a session: diagnostics appended to edits' results, and the LSP tool.

Attached only when some server is configured or found on PATH; without one nothing of tui.lsp beyond its
server table is imported, and no tool is added.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tui.tools.base import Tool, ToolContext, ToolResult

from .events import DiagnosticsReported, LspProblem, Notice

if TYPE_CHECKING:
    from tui.lsp.manager import LspManager

    from .session import AgentSession


@dataclass(frozen=True)
class _Before:
    path: str
    text: str | None


class LspEdits:
    """The dispatcher's edit observer: the file before an edit, its diagnostics after."""

    def __init__(self, session: AgentSession, manager: LspManager) -> None:
        self.session = session
        self.manager = manager

    def before(self, tool: Tool, tool_input: dict[str, Any], ctx: ToolContext) -> _Before | None:
        raw = tool_input.get("file_path") or tool_input.get("notebook_path")
        if not isinstance(raw, str) or not raw:
            return None
        try:
            path = str(ctx.resolve(raw))
        except Exception:  # noqa: BLE001 - the tool itself reports a bad path
            return None
        if not self.manager.any_server_for(path):
            return None
        return _Before(path, self.manager.before_edit(path))

    def after(self, token: _Before | None, result: ToolResult, tool_use_id: str, ctx: ToolContext) -> ToolResult:
        if token is None or result.is_error:
            return result
        shown = ctx.display_path(token.path)
        found = self.manager.after_edit(token.path, token.text, str(shown))
        if found is None:
            return result
        lines = tuple(line for line in found.text.splitlines() if not line.startswith(("<diagnostics", "</diag")))
        self.session.publish(
            DiagnosticsReported(
                tool_use_id=tool_use_id,
                path=token.path,
                server=found.server,
                errors=found.errors,
                warnings=found.warnings,
                lines=lines,
            )
        )
        if not found.text:
            return result  # a clean file adds nothing
        return ToolResult(_append(result.content, found.text), result.is_error, result.fatal, result.meta)


def _append(content: str | list[dict[str, Any]], note: str) -> str | list[dict[str, Any]]:
    if isinstance(content, str):
        return f"{content}\n\n{note}"
    return [*content, {"type": "text", "text": note}]


def _launch_in_sandbox(session: AgentSession) -> Any:
    """The sandbox's rules for a server's process (what it may write), when the Bash sandbox is on."""

    def launch(root: str) -> dict[str, Any]:
        from tui.sandbox import runtime

        current = runtime.current()
        if not current.enabled:
            return {}
        from tui.sandbox import launch as sandbox_launch

        prepared = current.prepare(root, [], [str(d) for d in session.options.add_dirs])
        return {"env": prepared.env, "preexec_fn": sandbox_launch.preexec_for(prepared.plan)}

    return launch


def attach_lsp(session: AgentSession) -> None:
    """Give `session` its language servers (when there are any): the edit observer and the LSP tool."""
    from tui.lsp.servers import LspOptions, choose

    options: LspOptions = session.options.lsp
    switches = dict(options.switches)
    if switches.get("enabled") is False:
        return
    specs = choose(options.specs, None if options.use_path else "")
    if not specs:
        return
    from tui.lsp.manager import LspManager, LspSettings

    settings = LspSettings(**{k: v for k, v in switches.items() if k in LspSettings.__dataclass_fields__})

    def notify(sentence: str) -> None:
        session.publish(LspProblem(server=sentence.split(" ", 1)[0], text=sentence))
        session.publish(Notice(level="warning", text=sentence))

    manager = LspManager(
        specs, str(session.options.project_dir), settings, launch=_launch_in_sandbox(session), notify=notify
    )
    session.lsp = manager
    session.dispatcher.edit_observer = LspEdits(session, manager)
    from tui.tools.lsp_tool import LspTool

    tool = LspTool(manager)
    session.tools.append(tool)
    session.base_tools.append(tool)
    session.dispatcher.tools[tool.name] = tool


def edited_files_errors(session: AgentSession) -> int:
    """Errors the servers last reported in files edited this session (the status line's count)."""
    manager = getattr(session, "lsp", None)
    return manager.error_count() if manager is not None else 0
