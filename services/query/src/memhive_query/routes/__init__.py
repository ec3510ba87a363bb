"""HTTP routes: decode, call one use case, answer."""
