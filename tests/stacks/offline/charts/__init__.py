"""Tests of `stacks/offline/charts/`."""
