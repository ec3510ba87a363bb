"""Lexical (BM25) lane adapters: embedded tantivy and an OpenSearch cluster."""
