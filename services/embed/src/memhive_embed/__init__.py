"""memhive embed: embeds saved memories in batches; keeps both lanes in step with the record."""
