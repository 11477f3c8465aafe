"""Tests of the host config models and the compatibility model."""
