"""Tests of `stacks/layers/`."""
