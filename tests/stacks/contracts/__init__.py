"""Tests of `stacks/contracts/`."""
