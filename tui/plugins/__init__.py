"""Claude Code plugins: marketplaces, installed plugins, and what each plugin brings.

A plugin is a folder with `.claude-plugin/plugin.json` and any of `commands/`, `agents/`, `skills/`,
`hooks/hooks.json` and `.mcp.json`. Marketplaces (`.claude-plugin/marketplace.json`) list plugins;
they are added from a folder or a git URL. `store` keeps the records, `manifest` reads the two
JSON formats, `marketplaces` and `install` change things, `components` reads one plugin's parts, and
`active` decides which plugins a session loads, feeding the existing loaders (commands and skills,
agents, hooks, MCP). Nothing here is imported unless a settings file names a plugin or a marketplace.
"""
