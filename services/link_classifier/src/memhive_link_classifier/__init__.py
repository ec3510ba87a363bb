"""memhive link classifier: proposes edges between each newly indexed memory and its neighbours."""
