"""Token counters: real tokenizers behind memhive_ports.token_counter.TokenCounter."""
