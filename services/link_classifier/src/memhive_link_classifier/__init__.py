"""memhive link_classifier service."""
