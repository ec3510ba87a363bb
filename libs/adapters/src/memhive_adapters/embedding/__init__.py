"""Embedder adapters: all-MiniLM-L6-v2 as a NumPy BERT pass (offline, no torch) and remote
providers through litellm."""
