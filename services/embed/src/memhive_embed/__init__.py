"""memhive embed service."""
