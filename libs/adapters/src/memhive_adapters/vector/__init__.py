"""Vector lane adapters: the embedded Qdrant engine (qdrant-edge) and a Qdrant server."""
