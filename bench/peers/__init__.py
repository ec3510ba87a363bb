"""Other memory systems measured beside memhive (`make bench PEERS=mem0`). Each peer runs in
a virtualenv of its own, outside the locked environment; only our drivers live here."""
