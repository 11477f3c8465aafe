"""`stacks diff`: the change between two plans and its renderings.

The model (`changes`), two files (`files`) and two `plan --all` folders (`dirs`), and the
text, markdown and Mermaid renderings (`text`, `markdown`, `mermaid`, their shared `words`).
May import `stacks.offline.lifecycle`, `stacks.offline.snapshot`, `stacks.offline.engine`
and `core`.
"""
