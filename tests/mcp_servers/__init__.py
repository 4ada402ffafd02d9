"""MCP servers the tests run for real (built with the SDK's MCPServer, FastMCP's 2.x name)."""
