"""Tests of `stacks/config/`."""
