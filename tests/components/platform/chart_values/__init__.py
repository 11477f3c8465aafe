"""Tests of `components/platform/chart_values/`."""
