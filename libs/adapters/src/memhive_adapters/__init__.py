"""Adapters: the edge of memhive. One module per backend, each implementing a port."""
