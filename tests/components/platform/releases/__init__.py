"""Tests of `components/platform/releases/`."""
