"""memhive embed: embeds saved memories in batches and keeps both recall lanes in step with the record."""
