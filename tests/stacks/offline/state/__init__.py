"""Tests of `stacks/offline/state/`."""
