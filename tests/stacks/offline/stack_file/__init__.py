"""Tests of `stacks/offline/stack_file/`."""
