"""Language servers: diagnostics after every edit, and the LSP tool's questions (definition, references, …).

Servers come from the `[lsp]` settings, plugins' `.lsp.json` (Claude Code's format), or `PATH`; each starts
on the first edit of a file of its language and lives for the session. Nothing here imports the engine or
the UI; pygls (the LSP client) loads only when a server starts.
"""
