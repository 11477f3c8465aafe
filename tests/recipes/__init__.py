"""Tests of `recipes/`."""
