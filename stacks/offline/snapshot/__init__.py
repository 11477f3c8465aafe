"""A program run as state: the plan snapshot, its file, its graph and its pictures.

The snapshot made from a recorded run (`recorded`, its type in `shape`), read back from
its file (`file`), its graph as readers need it (`graph`), the input paths it and the diff
name (`paths`), and the tree and Mermaid renderings (`tree`, `mermaid`). May import
`stacks.offline.engine` and `core`.
"""
