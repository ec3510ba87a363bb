"""Building the shared infrastructure a service needs from settings: the one place that
turns configuration into connected adapters."""
