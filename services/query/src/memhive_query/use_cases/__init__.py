"""What the gateway does, independent of HTTP or MCP: each entry point calls these."""
