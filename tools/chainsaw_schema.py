"""Write the Chainsaw Test schema the program validates against at preview, from Chainsaw's.

The program needs the schema at run time (users have no `../shared`), so it ships
`components/platform/chainsaw/test-chainsaw-v1alpha1.json`: Chainsaw's own file of the
pinned release with every `description` left out (upstream prose, which validation never
reads: 391 KB become 61 KB), keys and everything else as they are.

    python -m tools.chainsaw_schema SCHEMA

SCHEMA: Chainsaw's file, e.g. the shared copy
../shared/upstream/schemas/chainsaw-v0.2.15/test-chainsaw-v1alpha1.json

`tests/components/platform/chainsaw/test_schema.py` keeps the shipped file equal to this
extract of the shared copy.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

SHIPPED = (
    Path(__file__).resolve().parent.parent
    / "components"
    / "platform"
    / "chainsaw"
    / "test-chainsaw-v1alpha1.json"
)


# Maps of names to schemas: a key there is a property's name (the Test has a property
# `description`), never the annotation.
_NAMED = ("properties", "patternProperties", "definitions", "$defs")


def _without_descriptions(node: Any, names: bool = False) -> Any:
    """`node` less its `description` annotations; `names` when it maps names to schemas."""
    if isinstance(node, dict):
        return {
            k: _without_descriptions(v, not names and k in _NAMED)
            for k, v in node.items()
            if names or k != "description"
        }
    if isinstance(node, list):
        return [_without_descriptions(v) for v in node]
    return node


def extract(upstream_schema: Path) -> str:
    """The shipped text of Chainsaw's schema file at `upstream_schema`."""
    schema = json.loads(upstream_schema.read_text(encoding="utf-8"))
    compact = json.dumps(_without_descriptions(schema), separators=(",", ":"), ensure_ascii=False)
    return compact + "\n"


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    SHIPPED.write_text(extract(Path(sys.argv[1])), encoding="utf-8")
