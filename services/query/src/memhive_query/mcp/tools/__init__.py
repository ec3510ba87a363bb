"""One module per MCP tool; `memhive_query.mcp.registry` lists them."""
