"""Tests of `recipes/catalogs/`."""
