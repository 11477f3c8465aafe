"""Whether the engine deletes a replaced resource before it creates the replacement.

The resource's own `deleteBeforeReplace` says so, or else its provider's `Diff` asks
(rules.json `engine`): pulumi-kubernetes only for a named object that keeps its name and
namespace (`keeps_name`); Helm, pulumi-command and OCI never. A resource replaced because
of its provider never reaches the provider's `Diff`, so then only its own option counts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from stacks.offline.lifecycle.replacement_rules import Rules, TypeRules

UNKNOWN = "[unknown]"
SECRET = "[secret]"
"""How a snapshot shows an input unknown at preview, and a secret one (also `lifecycle`'s)."""


def delete_first(
    opts: Mapping[str, Any],
    type_rules: TypeRules,
    provider_replaced: bool,
    old_inputs: Mapping[str, Any],
    new_inputs: Mapping[str, Any],
    rules: Rules,
) -> bool:
    """Whether the engine deletes a replaced resource before it creates the replacement
    (rules.json `engine`): the resource's own `deleteBeforeReplace`, else what its
    provider's `Diff` asks. A replacement because of the provider (`provider_replaced`) is
    decided before the provider's `Diff` runs, so then only the option counts."""
    if opts.get("deleteBeforeReplace"):
        return True
    if provider_replaced and rules.provider_change_skips_diff:
        return False
    if type_rules.delete_before_replace:
        return True
    return type_rules.delete_before_replace_if_kept_name and keeps_name(old_inputs, new_inputs)


def keeps_name(old_inputs: Mapping[str, Any], new_inputs: Mapping[str, Any]) -> bool:
    """pulumi-kubernetes' condition for deleting first (rules.json
    `deleteBeforeReplaceWhenNamedAndKept`): the object is named in its inputs (not
    auto-named, not `generateName`) and its `.metadata.name` and `.metadata.namespace` are
    those of the old inputs (a namespace left out is `default`). A name or namespace unknown
    at preview is read as kept: conservatively deleted first, as the `up` does when it
    resolves to the same name."""
    old_md, new_md = _metadata(old_inputs), _metadata(new_inputs)
    if new_md is None or old_md is None:
        return True  # the whole metadata is unknown: it may well keep its name
    name, old_name = new_md.get("name"), old_md.get("name")
    if not name or not old_name:
        return False  # auto-named now (a new name) or before (its live name was generated)
    if _unknown(name) or _unknown(old_name):
        return True
    if name != old_name:
        return False
    namespace, old_namespace = new_md.get("namespace"), old_md.get("namespace")
    if _unknown(namespace) or _unknown(old_namespace):
        return True
    return bool((namespace or "default") == (old_namespace or "default"))


def _metadata(inputs: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """An object's `metadata` input ({} when there is none); None when it is unknown."""
    found = inputs.get("metadata")
    if isinstance(found, Mapping):
        return found
    return None if _unknown(found) else {}


def _unknown(value: Any) -> bool:
    return value in (UNKNOWN, SECRET)
