"""Tests of the host bootstrap steps, their renderer, pins and compatibility model."""
