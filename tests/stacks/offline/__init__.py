"""Tests of `stacks/offline/`."""
