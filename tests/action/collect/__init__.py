"""Tests of the collect step and the diagnostics collector it runs (scripts/collect/)."""
