"""memhive query: the gateway agents call (REST, MCP), answering recalls from both lanes."""
