"""What the next `pulumi up` does to each resource when its inputs change: the engine's rules.

Each resource's fate between two snapshots (`fate`), from the inputs that change
(`inputs`), the providers' replacement rules (`replacement_rules`, stated in
`replacements/`), the delete-first rule (`delete_first`), the fake cloud's made-up values
(`stand_ins`), and a resource's generation across plans (`generations`). May import
`stacks.offline.snapshot` and `core`.
"""
