"""Tests of `components/arc/`."""
