"""memhive query service."""
