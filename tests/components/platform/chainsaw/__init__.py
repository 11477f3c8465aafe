"""Tests of `components/platform/chainsaw/`."""
