"""Options of one agent session: what the CLI, the settings and the app hand the engine."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import field
from pathlib import Path
from typing import Any

from tui.config.lean_dataclass import lean_dataclass


@lean_dataclass
class AgentOptions:
    """What one session runs with (a docstring of its own: dataclass would otherwise build one from the signature)."""

    project_dir: Path = field(default_factory=Path.cwd)
    model: str = "claude-sonnet-5-5"
    #: max_tokens of each reply (None: the model's output limit, pricing.max_output_tokens)
    max_tokens: int | None = None
    permission_mode: str = "default"
    allowed_tools: list[str] = field(default_factory=list)
    disallowed_tools: list[str] = field(default_factory=list)
    max_turns: int | None = None
    max_budget_tokens: int | None = None
    #: --max-budget-usd: stop before the next request once the session has cost this much
    max_budget_usd: float | None = None
    #: extended thinking for the following turns (None: the model's default; Tab and /think toggle it)
    thinking: bool | None = None
    #: `output_config.effort` (low … max) for models that take it (None: the model's default; /effort, --effort)
    effort: str | None = None
    #: --add-dir and /add-dir: working directories the tools treat as part of the project (absolute, resolved)
    add_dirs: list[Path] = field(default_factory=list)
    parallel_tools: bool = True
    #: use the built-in offline model instead of the API
    offline: bool = False
    #: True in the app: gated calls ask through PermissionRequested. False in -p: they are denied.
    interactive: bool = False
    #: the front end, for what the model is told and offered: "app", "print" (-p), "acp" or "sdk"
    #: ("": the app when interactive, else -p)
    front_end: str = ""
    max_retries: int = 4
    #: seconds without a byte before a stream counts as stalled
    stream_idle_timeout: float = 90.0
    #: base delay of the loop's own retry backoff, seconds (tests make it small)
    retry_base_delay: float = 0.5
    retry_max_delay: float = 32.0
    #: a same-call repetition count that adds a warning to the result, and one that stops the loop
    no_progress_warn: int = 3
    no_progress_stop: int = 5
    #: where transcripts go; None = the user data dir
    sessions_dir: Path | None = None
    #: write a transcript at all
    transcript: bool = True
    #: resume this session id (None = new session)
    session_id: str | None = None
    #: offline model pacing: seconds per streamed chunk (0 = as fast as possible)
    offline_delay: float | None = None
    #: compact automatically when the next request would pass this share of the window (0 = never)
    auto_compact_threshold: float = 0.8
    #: what reaching the threshold does: "auto" compacts, "ask" asks first (the app), "off" never compacts
    compaction: str = "auto"
    #: days checkpoints of sessions not used since are kept
    cleanup_period_days: int = 30
    #: override the model's context window (tests, proxies with smaller limits)
    context_window: int | None = None
    #: the `provider` setting (anthropic | bedrock | vertex; CLAUDE_CODE_USE_* win) and model id overrides
    provider: str | None = None
    model_ids: dict[str, str] = field(default_factory=dict)
    #: language servers: tui.lsp.servers.LspOptions (switches and the configured servers); None turns them off
    lsp: Any = None
    #: `[providers.NAME]` profiles (tui.providers.profiles.Profile by name): `NAME:MODEL` goes to NAME's endpoint
    profiles: dict[str, Any] = field(default_factory=dict)
    #: a shell command whose stdout is the API key (user settings or a trusted folder only)
    api_key_helper: str | None = None
    #: the model for compaction summaries (ANTHROPIC_SMALL_FAST_MODEL); None = the session's model
    small_fast_model: str | None = None
    #: --fallback-model: the model to go on with when this one stays overloaded (529) after the retries
    fallback_model: str | None = None
    # --- MCP (tui/mcp) ---
    #: the MCP servers to connect (tui.mcp.config.McpServerConfig), precedence resolved
    mcp_servers: list[Any] = field(default_factory=list)
    #: project servers not started, by name, and why ("untrusted folder", "disabled", "not approved")
    mcp_held_back: dict[str, str] = field(default_factory=dict)
    #: sentences about MCP entries that could not be used
    mcp_problems: list[str] = field(default_factory=list)
    #: the cap of one MCP tool result in tokens (mcp.max_output_tokens, MAX_MCP_OUTPUT_TOKENS)
    mcp_max_output_tokens: int = 25_000
    #: subagents (the Agent tool): how many run at once, and how deep they may nest (0 = no Agent tool)
    max_parallel_subagents: int = 10
    max_subagent_depth: int = 3
    #: WebSearch server tool: `max_uses`, and `allowed_domains` / `blocked_domains`
    web_search_max_uses: int = 8
    #: a background task's output file keeps its newest part past this many MB (0: no cap)
    background_output_limit_mb: int = 256
    web_search_allowed_domains: list[str] = field(default_factory=list)
    web_search_blocked_domains: list[str] = field(default_factory=list)
    #: an attached image's long edge is scaled down to this many pixels (the `image_max_edge` setting)
    image_max_edge: int = 1568
    #: the hooks read at start (tui.hooks.config.HookConfig); None when no settings file has any
    hooks: Any = None
    # --- Claude Code's prompt and tool-set flags (the Agent SDK passes them) ---
    #: --system-prompt: replaces agent-tui's instructions ("" leaves them out); memory and environment stay
    system_prompt: str | None = None
    #: --append-system-prompt: a block after the instructions
    append_system_prompt: str | None = None
    #: --tools: the built-in tools offered, by name (None: all of them; []: none)
    tool_names: list[str] | None = None
    #: called with each top-level session once it is built (telemetry subscribes here); subagents skip it
    on_session: list[Callable[[Any], None]] = field(default_factory=list)
    #: the enabled plugins (tui.plugins.active.ActivePlugins); None when no settings file names any
    plugins: Any = None
