"""Tests of `components/platform/checks/`."""
