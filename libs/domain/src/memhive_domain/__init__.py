"""memhive's domain: memories, scopes, principals, recall rules. Imports nothing of ours, does no I/O."""
