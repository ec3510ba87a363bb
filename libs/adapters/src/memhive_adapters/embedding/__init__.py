"""Embedders: the bundled local model (default, offline) and remote providers through litellm."""
