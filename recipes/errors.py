"""The one error type recipe catalogs raise, and how its messages name file and field.

Every message starts with the catalog file (relative to its data directory) and the dotted
field path inside it, e.g. ``overlays/kind.yaml: spec.componentRefs[2].valuesFile: ...``, so
a user can jump straight to the line to fix.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import ValidationError

from core.errors import GpuCiError


class RecipeError(GpuCiError):
    """A recipe catalog or recipe query the user can fix."""


def field_path(loc: Sequence[int | str]) -> str:
    """``("spec", "componentRefs", 2, "valuesFile")`` -> ``spec.componentRefs[2].valuesFile``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out or "(document)"


def from_validation_error(rel: str, err: ValidationError) -> RecipeError:
    """One RecipeError listing every pydantic problem as ``file: field: reason``."""
    lines = []
    for item in err.errors():
        loc = [p for p in item["loc"] if not (isinstance(p, str) and p.startswith("function-"))]
        reason = "unknown field" if item["type"] == "extra_forbidden" else item["msg"]
        lines.append(f"{rel}: {field_path(loc)}: {reason}")
    return RecipeError("\n".join(lines))
