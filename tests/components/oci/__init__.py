"""Tests of `components/oci/`."""
