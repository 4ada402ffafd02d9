"""MCP client support: configuration, the client manager, tools, resources and prompts."""
