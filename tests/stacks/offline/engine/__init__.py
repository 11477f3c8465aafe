"""Tests of `stacks/offline/engine/`."""
