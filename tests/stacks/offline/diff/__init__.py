"""Tests of `stacks/offline/diff/`."""
