"""Tests of the gpu-cluster action (.github/actions/gpu-cluster) and its example workflow."""
