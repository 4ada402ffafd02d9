"""Fill the MCP part of AgentOptions from the command line and the settings files."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tui.mcp.sources import ProjectFilter, load_mcp_servers

if TYPE_CHECKING:  # the engine imports tui.mcp, not the other way round
    from tui.agent.options import AgentOptions


def fill_mcp_options(
    opts: AgentOptions, configs: Sequence[str], *, strict: bool, trusted: bool, approve: ProjectFilter | None = None
) -> list[str]:
    """Load every MCP source for `opts.project_dir` into `opts`; returns the problems (also kept in opts)."""
    loaded = load_mcp_servers(opts.project_dir, trusted=trusted, cli_configs=configs, strict=strict, approve=approve)
    opts.mcp_servers = loaded.servers
    opts.mcp_held_back = loaded.held_back
    opts.mcp_problems = loaded.problems
    opts.mcp_max_output_tokens = loaded.max_output_tokens
    return [f"MCP: {problem}" for problem in loaded.problems]
