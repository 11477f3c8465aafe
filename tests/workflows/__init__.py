"""Tests: workflows."""
