"""Tests of `core/`."""
