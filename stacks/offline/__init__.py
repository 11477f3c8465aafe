"""offline."""
