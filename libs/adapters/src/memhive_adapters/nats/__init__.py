"""NATS JetStream adapters: the embedded server, the log, the KV record, consumers, dead letters."""
