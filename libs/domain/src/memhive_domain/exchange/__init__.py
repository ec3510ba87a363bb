"""Moving memories in and out: memhive's own JSONL export (every field, edges, revisions),
a Markdown export (one file per scope node), and what other tools keep (mem0's `get_all`
JSON, CLAUDE.md / AGENTS.md / Cursor rules / Copilot instructions). Parsers and renderers
only: no I/O; the gateway's import and export use cases do the reading and writing."""
