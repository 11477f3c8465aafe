"""Tests of the host steps' parameter models and their checks."""
