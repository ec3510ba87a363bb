"""memhive bulletin service."""
