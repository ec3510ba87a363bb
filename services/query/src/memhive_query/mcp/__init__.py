"""The MCP surface of the query gateway: tools agents call, over streamable HTTP or stdio."""
