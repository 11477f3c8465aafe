"""Metrics, scraping and dashboards: how busy the GPUs are and how long jobs wait."""
