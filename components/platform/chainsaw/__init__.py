"""Chainsaw `Test` documents: built, parsed, and checked against the pinned Chainsaw v0.2.15.

The Tests gpu-ci writes itself and what it reads back from any Test (`documents`), what a
Test reads from the cluster (`reads`, `expressions`), how long it may run at worst
(`worst_case`, on Go's durations: `durations`), what makes a schema-valid Test fail every
run (`runnable`), Chainsaw's own schema (`schema`, on the data beside it: `README.md`) and
the shell that runs one in a check Job (`script`). Nothing here knows gpu-ci's checks.

May import: `core` only. The checks (`components/platform/checks/`) import it.
"""
