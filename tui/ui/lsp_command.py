"""`/lsp`: the language servers, their state, the files open and the last diagnostics of edited files."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .commands import slash_command

if TYPE_CHECKING:
    from .app import AgentApp


@slash_command("lsp", "Show the language servers: state, open files, last diagnostics")
async def _lsp(app: AgentApp, args: str) -> None:
    lsp = getattr(app.session, "lsp", None)
    if lsp is None:
        lines = [
            "No language server: none is configured ([lsp] settings, plugins' .lsp.json) or found on PATH "
            "(basedpyright-langserver, pyright-langserver, ty, pylsp, typescript-language-server, gopls, "
            "rust-analyzer, clangd)."
        ]
    else:
        lines = lsp.status_lines()
    app.status.lsp_problem = ""  # seen
    await app.controller.add_marker("\n".join(lines), "info")
