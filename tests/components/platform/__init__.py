"""Tests of `components/platform/`."""
