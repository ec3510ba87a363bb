"""memhive's domain: memories, scopes, principals, recall rules.

Imports nothing of ours and does no I/O.
"""
