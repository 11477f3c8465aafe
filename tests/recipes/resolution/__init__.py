"""Tests of `recipes/resolution/`."""
