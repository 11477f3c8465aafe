"""`stacks diff --state`: a plan against a deployed stack's `pulumi stack export`.

The export read back (`export`) and its values (`values`), made the base snapshot
(`snapshot`, with the fakes' stand-ins matched in `standins`), the diff with what only the
state knows (`diff`) and its folder form (`dirs`); and a plan written as the export its
`pulumi up` would leave (`synthetic`). May import `stacks.offline.diff`,
`stacks.offline.lifecycle`, `stacks.offline.snapshot`, `stacks.offline.engine` and `core`.
"""
