"""memhive ingest service."""
