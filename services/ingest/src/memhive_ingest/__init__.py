"""memhive ingest: validates commands from the bus, writes the record, announces events."""
