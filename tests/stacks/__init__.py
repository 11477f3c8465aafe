"""Tests of `stacks/`."""
