"""The `Agent` tool: a subagent is a full loop of its own (the same `loop.run_turn`, never a copy).

A subagent session has its own messages, system prompt, tool set, usage and transcript, and
shares the parent's client, permission policy and cancel flag (Esc stops every subagent).
Its events go to its own bus (for its transcript) and on to the parent's, stamped with its
loop path (`main/<alias>`), so the app, `-p` and the tests see nested work as it happens.
Its final text comes back as the Agent call's tool_result, with its token use and duration.
"""

from __future__ import annotations

import dataclasses
import os
import re
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui.agent.cost.pricing import add_usage
from tui.agent.events.bus import EventBus
from tui.config.agent_files import AgentDefinition, load_definitions
from tui.tools.base import Tool, ToolContext, ToolError, ToolInterrupted, ToolResult

from .agent_tool_text import DESCRIPTION, INPUT_SCHEMA, agent_schema
from .client import profile_model
from .events import Event, LoopStopped, Notice, SubagentFinished, SubagentStarted, ToolFinished
from .session import AgentSession

if TYPE_CHECKING:
    from .worktree import Worktree, WorktreeResult

#: tools a subagent never gets (they need the user or the main session)
NEVER_IN_SUBAGENTS = frozenset({"AskUserQuestion", "EnterPlanMode", "ExitPlanMode", "TaskOutput"})
SHORT_MODELS = {"sonnet": "claude-sonnet-5-5", "opus": "claude-opus-5-5", "haiku": "claude-haiku-5-5"}
USAGE_KEYS = ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")


def resolve_model(wanted: str, parent_model: str, small_fast_model: str | None = None) -> str:
    """`inherit` is the parent's model; `haiku` the small fast model when one is set; `sonnet`/`opus`/`haiku`
    their current ids; anything else as written."""
    if not wanted or wanted == "inherit":
        return parent_model
    if wanted == "haiku" and small_fast_model:
        return small_fast_model
    return SHORT_MODELS.get(wanted, wanted)


def usage_total(usage: dict[str, Any]) -> int:
    return sum(int(usage.get(key) or 0) for key in USAGE_KEYS)


class SubagentSession(AgentSession):
    """One subagent's conversation: an AgentSession whose events carry its loop path."""

    def __init__(
        self,
        parent: AgentSession,
        definition: AgentDefinition,
        *,
        agent_path: str,
        agent_id: str,
        model: str,
        project_dir: Path,
        tools: list[Tool],
        cancel: threading.Event | None = None,
    ) -> None:
        self.loop_path = agent_path
        options = dataclasses.replace(
            parent.options, model=model, project_dir=project_dir, transcript=False, session_id=agent_id, mcp_servers=[]
        )  # MCP tools come from the parent's
        self.definition = definition
        self.agent_type = definition.name  # its end fires SubagentStop, not Stop (hook_points.py)
        self.stopped: LoopStopped | None = None
        self.tool_uses = 0
        policy = parent.policy
        if (
            project_dir != parent.options.project_dir
            and dataclasses.is_dataclass(policy)
            and not isinstance(policy, type)
        ):
            policy = dataclasses.replace(policy, project_dir=project_dir)  # a worktree: its paths are the project's
        super().__init__(options, EventBus(), tools=tools, policy=policy)
        self.dispatcher.pending = parent.dispatcher.pending  # one answer's rule settles the questions of every loop
        self.dispatcher.interactive = (
            parent.dispatcher.interactive
        )  # someone to ask (the app, the Agent SDK) asks here too
        # Esc in the main loop stops every subagent; a background one stops with its task (TaskStop, quit)
        self.cancel_event = cancel if cancel is not None else parent.cancel_event
        self.state.tasks = parent.state.tasks  # its background commands are the session's: announced and stopped there
        self._client = parent.client()
        self.lsp = parent.lsp  # its edits get the parent's servers' diagnostics too
        self.dispatcher.edit_observer = parent.dispatcher.edit_observer
        self.offline = parent.offline and not profile_model(options)  # a profile's model answers for real
        self.costs = parent.costs  # one ledger: /cost and -p JSON show each subagent's share
        self.memory_text = "" if definition.tools is not None else parent.memory_text
        self._forward = self.bus.subscribe(parent.bus.publish, inline=True)

    def publish(self, event: Event) -> None:
        """Stamp this loop's path on an event it emits, then publish it (its bus forwards it up)."""
        object.__setattr__(event, "loop_path", self.loop_path)  # not yet seen by anyone: stamping is safe
        if isinstance(event, LoopStopped):
            self.stopped = event
        elif isinstance(event, ToolFinished):
            self.tool_uses += 1
        self.bus.publish(event)

    def system_blocks(self) -> list[dict[str, Any]]:
        """The definition's prompt and the rules every subagent keeps (cache-marked), the parent's memory for full
        agents, the environment."""
        if self._system_cache is None:
            from tui.agent.api.environment import environment_text
            from tui.agent.api.prompts import SUBAGENT_RULES
            from tui.agent.api.request import EPHEMERAL

            prompt = f"{self.definition.prompt}\n\n{SUBAGENT_RULES}"
            blocks: list[dict[str, Any]] = [{"type": "text", "text": prompt, "cache_control": dict(EPHEMERAL)}]
            if self.memory_text:
                blocks.append({"type": "text", "text": self.memory_text})
            blocks.append(
                {
                    "type": "text",
                    "text": environment_text(
                        self.options.project_dir,
                        self.options.model,
                        extra_dirs=self.options.add_dirs,
                        approvals=self.approvals(),
                    ),
                }
            )
            self._system_cache = (self.options.model, blocks)
        return self._system_cache[1]

    def reload_memory(self, compacted: bool = False) -> None:
        """Read the parent's memory files again (a full agent carries them; a restricted one never does)."""
        if self.definition.tools is None:
            self.memory_text = self._load_memory()
        self._system_cache = None

    def finish(self) -> None:
        """Flush and close the transcript and the tool pool; the parent's cancel flag stays as it is."""
        self.costs.end_loop(self.loop_path)  # the shared ledger keeps its entries, not its messages
        self.close_transcript()
        self._forward.close()
        self.dispatcher.close()


class AgentTool(Tool):
    """Claude Code's `Agent` tool, run by the session that owns it."""

    name = "Agent"
    description = DESCRIPTION
    input_schema = INPUT_SCHEMA
    read_only = True  # spawning never asks; the subagent's own calls are checked

    def __init__(self, owner: AgentSession, depth: int = 0) -> None:
        self.owner = owner
        self.depth = depth
        self._definitions: list[AgentDefinition] | None = None
        #: one sentence per agent file skipped when the definitions were last read
        self.problems: list[str] = []
        self._lock = threading.Lock()
        self._numbers: dict[str, int] = {}
        self._aliases: set[str] = set()
        #: `model` may name a provider profile's model too
        self.schema = agent_schema(owner.options.profiles) if owner.options.profiles else INPUT_SCHEMA
        cap = max(1, owner.options.max_parallel_subagents)
        self._slots = threading.Semaphore(cap)
        owner.dispatcher.max_workers = max(owner.dispatcher.max_workers, cap)

    # --- definitions ----------------------------------------------------------------------

    def definitions(self) -> list[AgentDefinition]:
        """The agent types (read once per session; project files only in a trusted folder)."""
        with self._lock:
            if self._definitions is None:
                parent = getattr(self.owner, "definitions_from", None)
                if parent is not None:
                    self._definitions = parent
                else:
                    trusted = bool(getattr(self.owner.policy, "trusted", False))
                    plugins = getattr(self.owner.options, "plugins", None)  # tui.plugins.active.ActivePlugins
                    extra = plugins.agents(trusted) if plugins is not None else []
                    from tui.tools.attachments import denied_reads

                    project_dir = self.owner.options.project_dir
                    denied = denied_reads(Path(project_dir), self.owner.policy)
                    self._definitions, self.problems = load_definitions(
                        project_dir, trusted, extra=extra, denied=denied
                    )
                    for problem in self.problems:
                        self.owner.publish(Notice(level="warning", text=problem))
            return self._definitions

    def reload(self) -> None:
        """Read the agent files again (after /agents made one); the tool list changes with the next request."""
        with self._lock:
            self._definitions = None
        self.owner._tool_defs = None

    def definition(self) -> dict[str, Any]:
        kinds = "\n".join(f"- {d.name}: {d.description}" for d in self.definitions())
        return {"name": self.name, "description": f"{DESCRIPTION}\n{kinds}", "input_schema": self.schema}

    def call_schema(self) -> dict[str, Any]:
        return self.schema

    def find(self, wanted: str | None) -> AgentDefinition:
        kinds = self.definitions()
        wanted = wanted or "general-purpose"
        for d in kinds:
            if d.name == wanted:
                return d
        for d in kinds:
            if d.name.lower() == wanted.lower():
                return d
        raise ToolError(f"Unknown subagent_type {wanted!r}. Available: {', '.join(d.name for d in kinds)}.")

    # --- the Tool interface ----------------------------------------------------------------

    def permission_target(self, tool_input: dict[str, Any], ctx: ToolContext) -> str | None:
        return str(tool_input.get("subagent_type") or "general-purpose")

    def label(self, tool_input: dict[str, Any], ctx: ToolContext) -> str:
        kind = tool_input.get("subagent_type") or "general-purpose"
        return f"Agent {kind}: {tool_input.get('description') or ''}".rstrip(": ")

    def preview(self, tool_input: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        return {"kind": "text", "text": str(tool_input.get("prompt", ""))}

    def check_input(self, tool_input: dict[str, Any], ctx: ToolContext) -> None:
        self.find(tool_input.get("subagent_type"))

    def run(self, tool_input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        definition = self.find(tool_input.get("subagent_type"))
        if tool_input.get("run_in_background"):
            from .background_agents import start_background

            return start_background(self, definition, tool_input, ctx)
        while not self._slots.acquire(timeout=0.05):  # at most max_parallel_subagents at once
            if ctx.cancel.is_set():
                raise ToolInterrupted()
        try:
            return run_subagent(self, definition, tool_input, ctx)
        finally:
            self._slots.release()

    # --- helpers ---------------------------------------------------------------------------

    def alias(self, tool_input: dict[str, Any], definition: AgentDefinition) -> str:
        """A short unique name for the loop path: the given `name`, else `<type>-<n>`."""
        wanted = re.sub(r"[^\w.-]+", "-", str(tool_input.get("name") or "")).strip("-")[:40]
        stem = wanted or definition.name.lower()
        with self._lock:
            alias = wanted
            while not alias or alias in self._aliases:
                self._numbers[stem] = number = self._numbers.get(stem, 0) + 1
                alias = f"{stem}-{number}"
            self._aliases.add(alias)
        return alias

    def agent_path(self, tool_input: dict[str, Any], definition: AgentDefinition) -> str:
        """The loop path of a new subagent of this tool's session."""
        return f"{self.owner.loop_path}/{self.alias(tool_input, definition)}"

    def tools_for(self, definition: AgentDefinition, sub: AgentSession | None = None) -> list[Tool]:
        """The subagent's tools: the parent's (never Agent unless the definition names it, within the depth limit)."""
        tools = [t for t in self.owner.tools if t.name != self.name and t.name not in NEVER_IN_SUBAGENTS]
        if definition.tools is not None:
            allowed = set(definition.tools)
            tools = [t for t in tools if t.name in allowed]
        return tools

    def may_nest(self, definition: AgentDefinition) -> bool:
        return definition.may_nest and self.depth + 1 < self.owner.options.max_subagent_depth


def _transcript_path(parent: AgentSession, agent_id: str) -> Path | None:
    path = parent.transcript_path
    if path is None:
        return None
    root = getattr(parent, "transcript_root", None) or path.parent / path.stem
    return Path(root) / "subagents" / f"agent-{agent_id}.jsonl"


def run_subagent(
    tool: AgentTool,
    definition: AgentDefinition,
    tool_input: dict[str, Any],
    ctx: ToolContext,
    *,
    agent_path: str | None = None,
    cancel: threading.Event | None = None,
) -> ToolResult:
    """Run one subagent to its end on this thread and pack its result for the parent."""
    from tui.agent.loop.loop import run_turn

    parent = tool.owner
    agent_id = os.urandom(8).hex()  # (`secrets` costs 5 ms of start-up)
    agent_path = agent_path or tool.agent_path(tool_input, definition)
    model = resolve_model(
        str(tool_input.get("model") or definition.model), parent.options.model, parent.options.small_fast_model
    )
    tree: Worktree | None = None
    project_dir = parent.options.project_dir
    if tool_input.get("isolation") == "worktree":
        from .worktree import WorktreeError, create_worktree

        try:
            tree = create_worktree(project_dir, agent_id)
        except WorktreeError as exc:
            raise ToolError(str(exc)) from None
        project_dir = tree.project_dir
    sub = SubagentSession(
        parent,
        definition,
        agent_path=agent_path,
        agent_id=agent_id,
        model=model,
        project_dir=project_dir,
        tools=tool.tools_for(definition),
        cancel=cancel,
    )
    sub.definitions_from = tool.definitions()  # type: ignore[attr-defined]
    if tool.may_nest(definition):
        sub.tools.append(AgentTool(sub, tool.depth + 1))
        sub.dispatcher.tools = {t.name: t for t in sub.tools}
    transcript = _transcript_path(parent, agent_id)
    if transcript is not None:
        sub.attach_transcript(sub.new_transcript(transcript))
        link = {
            "type": "subagent",
            "tool_use_id": ctx.tool_use_id,
            "agent_id": agent_id,
            "agent_path": agent_path,
            "subagent_type": definition.name,
            "transcript": str(transcript),
        }
        parent.subagent_links.append(link)
        if parent.transcript is not None:
            parent.transcript.write(link)
    parent.publish(
        SubagentStarted(
            tool_use_id=ctx.tool_use_id,
            agent_id=agent_id,
            agent_path=agent_path,
            subagent_type=definition.name,
            description=str(tool_input.get("description", "")),
            model=model,
            transcript=str(transcript) if transcript else None,
            worktree=str(tree.path) if tree else None,
        )
    )
    started = time.monotonic()
    try:
        run_turn(sub, str(tool_input.get("prompt", "")))
    finally:
        sub.finish()
    tree_result = _finish_tree(tree, agent_id, tool_input)
    return _pack(parent, sub, ctx, agent_id, started, tree_result)


def _finish_tree(tree: Worktree | None, agent_id: str, tool_input: dict[str, Any]) -> WorktreeResult | None:
    if tree is None:
        return None
    from .worktree import finish_worktree

    return finish_worktree(tree, f"agent-tui subagent {agent_id}: {tool_input.get('description') or 'work'}")


def _pack(
    parent: AgentSession,
    sub: SubagentSession,
    ctx: ToolContext,
    agent_id: str,
    started: float,
    tree: WorktreeResult | None,
) -> ToolResult:
    stop = sub.stopped
    duration_ms = int((time.monotonic() - started) * 1000)
    tokens = usage_total(sub.usage_totals)
    text = sub.turn_text()
    reason = stop.reason if stop else "error"
    is_error = stop is None or stop.is_error
    parent.denials.extend(sub.denials)
    add_usage(parent.usage_totals, sub.usage_totals)  # the session's totals and budget count its subagents
    parent.cost_usd += sub.cost_usd
    parent.publish(
        SubagentFinished(
            tool_use_id=ctx.tool_use_id,
            agent_id=agent_id,
            agent_path=sub.loop_path,
            stop_reason=reason,
            is_error=is_error,
            duration_ms=duration_ms,
            total_tokens=tokens,
            tool_uses=sub.tool_uses,
            summary=(text or (stop.detail if stop else ""))[:300],
            worktree_diff=tree.diff if tree else "",
            worktree_branch=tree.branch if tree else None,
        )
    )
    if reason == "interrupted":
        raise ToolInterrupted()
    usage = f"agentId: {agent_id}\n<usage>total_tokens: {tokens}\ntool_uses: {sub.tool_uses}\nduration_ms: {duration_ms}</usage>"
    if is_error:
        detail = stop.detail if stop else "it ended without a reason"
        body = f"The subagent stopped with an error ({reason}): {detail}" + (
            f"\n\nIts last message:\n{text}" if text else ""
        )
    else:
        body = text or "(the subagent ended without a final message)"
    content = [{"type": "text", "text": body}]
    if tree is not None:
        where = f"kept on branch {tree.branch} in {tree.path}" if tree.kept else "no changes; the worktree was removed"
        content.append(
            {"type": "text", "text": f"Worktree: {where}." + (f"\n```diff\n{tree.diff}\n```" if tree.diff else "")}
        )
    content.append({"type": "text", "text": usage})
    meta = {
        "agent_id": agent_id,
        "agent_path": sub.loop_path,
        "total_tokens": tokens,
        "duration_ms": duration_ms,
        "tool_uses": sub.tool_uses,
        "diff": tree.diff if tree else "",
    }
    return ToolResult(content, is_error=is_error, meta=meta)


def attach_agent_tool(session: AgentSession) -> None:
    """Give a main session the Agent tool (the last tool, so the others keep their order)."""
    tool = AgentTool(session)
    session.tools.append(tool)
    session.base_tools.append(tool)  # kept when MCP tools are swapped in between turns
    session.dispatcher.tools[tool.name] = tool
