"""The recipe model: the typed documents of every AICR catalog format and what they hold.

Overlays and mixins (`overlays.py`), the component registry (`registry.py`), the small
types every format shares (`base_types.py`), validation phases and their merges
(`validation.py`), criteria and their asymmetric matching (`criteria.py`,
`criteria_values.py`), the rules of each AICR release (`semantics.py`), and the resolved
`RecipeResult` a deployer consumes (`result.py`). Plain data and pure functions: it reads
no file. It may import `core` only (the lowest package of `recipes`).
"""
