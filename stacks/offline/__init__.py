"""The offline engine: plan a stack under recording mocks, then show and diff the plan.

Its rooms, lowest first, each importing only those before it: `engine` (the recording mock
engine), `snapshot` (a run as state), `lifecycle` (what `pulumi up` does to a resource),
`diff`, `state` (the diff against a deployed stack); `stack_file` (stack files and ESC)
stands apart. `references`, `plan`, `plan_all`, `charts` and `cli` sit on top of them.

Usable without the program: only `plan` (and the `cli` on top of it) imports `stacks.program`.
"""
