"""memhive ingest: validates commands from the bus, writes the record (JetStream KV), announces events."""
