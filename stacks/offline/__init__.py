"""The offline engine: plan a stack under recording mocks, then show and diff the plan.

Usable without the program: only `plan` (and the `cli` on top of it) imports `stacks.program`.
"""
