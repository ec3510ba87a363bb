"""Rerankers: a second opinion on recall's candidates (optional, off by default)."""
