"""The chart-values check: each `set` path against the values the pinned chart knows.

What one chart version knows and the paths that miss it (`lookup`, from
`recipes/chart-values/`), read from its `values.yaml` (`defaults`, with the keys its
comments document: `comments`) or its `values.schema.json` (`schema`), along Helm's values
paths (`paths`).

May import: `components.platform.releases` (the `set` overrides), `recipes`, `core`.
"""
