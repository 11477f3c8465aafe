"""Oracles: test-only models of what upstream tools do (a chart's rendering, a validator)."""
