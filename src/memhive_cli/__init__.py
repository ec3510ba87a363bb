"""memhive command line: run the embedded stack, serve one service, manage tokens."""
