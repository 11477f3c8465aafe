"""Tests of `stacks/offline/lifecycle/`."""
