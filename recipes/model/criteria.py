"""Recipe criteria and AICR's asymmetric matching.

Criteria values are open strings: a catalog may introduce a new accelerator or service
(`accelerator: a10`) without a code change. Matching is asymmetric, as in AICR: an empty or
`any` field in a recipe is a wildcard, while `any` in a query matches only recipes that
leave the field open, so a generic query never picks a specialised recipe. `nodes` follows
the same rule with 0 as `any`. A query is normalised first (trimmed, lower-cased, the
aliases of the catalog's AICR release resolved: `recipes.model.criteria_values`).

One choice differs from AICR: an overlay's own values compare case-insensitively (AICR
compares them as written, so an overlay spelling `accelerator: H100` is never reached by
any query); here it is reached by `--accelerator h100`.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from recipes.model.criteria_values import AICR_VALUES, ANY, TODAY, CriteriaRules, canonical

FIELDS: tuple[str, ...] = ("service", "accelerator", "os", "intent", "platform")

HELP: dict[str, str] = {
    "service": "the Kubernetes service the cluster runs on",
    "accelerator": "the GPU model",
    "os": "the GPU nodes' operating system",
    "intent": "the workload",
    "platform": "the ML platform the recipe serves",
    "nodes": "the node count an overlay is pinned to",
}
"""What each criterion means (`python -m recipes recipe --help`)."""

__all__ = ["AICR_VALUES", "ANY", "FIELDS", "HELP", "RecipeCriteria", "field_matches"]


def _is_any(value: str) -> bool:
    return value == "" or value.lower() == ANY


def field_matches(recipe_value: str, query_value: str) -> bool:
    """AICR's per-field rule: recipe wildcard matches all; query `any` matches only `any`."""
    if _is_any(recipe_value):
        return True
    if _is_any(query_value):
        return False
    return recipe_value.lower() == query_value.lower()


class RecipeCriteria(BaseModel):
    """When an overlay applies (in a recipe) or what is asked for (in a query)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    service: str = ""
    accelerator: str = ""
    os: str = ""
    intent: str = ""
    platform: str = ""
    nodes: int = Field(default=0, ge=0)

    def value(self, name: str) -> str:
        """The named string criterion (one of FIELDS)."""
        return str(getattr(self, name))

    def matches(self, query: RecipeCriteria) -> bool:
        """Whether this recipe criteria accepts `query` (asymmetric: self is the recipe)."""
        if not all(field_matches(self.value(f), query.value(f)) for f in FIELDS):
            return False
        return self.nodes in (0, query.nodes)

    def specificity(self) -> int:
        """How many criteria are pinned; overlays apply least specific first."""
        pinned = sum(not _is_any(self.value(f)) for f in FIELDS)
        return pinned + (self.nodes != 0)

    def normalized(self, rules: CriteriaRules = TODAY) -> RecipeCriteria:
        """The query as AICR parses it: trimmed, lower-cased, aliases resolved, open = `any`."""
        values = {f: canonical(f, self.value(f), rules) for f in FIELDS}
        return RecipeCriteria(nodes=self.nodes, **values)

    def flags(self) -> str:
        """The pinned criteria as CLI flags, e.g. ``--service kind --accelerator a10``."""
        parts = [f"--{f} {self.value(f)}" for f in FIELDS if not _is_any(self.value(f))]
        if self.nodes:
            parts.append(f"--nodes {self.nodes}")
        return " ".join(parts) or "(no criteria)"

    def describe(self) -> str:
        """AICR's `Criteria.String()`: ``criteria(service=eks, accelerator=h100)``."""
        parts = [f"{f}={self.value(f)}" for f in FIELDS if not _is_any(self.value(f))]
        if self.nodes:
            parts.append(f"nodes={self.nodes}")
        return f"criteria({', '.join(parts)})" if parts else "criteria(any)"
