"""URNs as the Pulumi engine makes them, which the mock engine's own do not match.

`pulumi up --target/--replace` takes the engine's URNs, and aliases are resolved against
them, so the recording mock engine names every resource this way.
"""

from __future__ import annotations

STACK_TYPE = "pulumi:pulumi:Stack"


def qualified_type(urn: str) -> str:
    """The type part of a URN: the resource's type after its parents' (`a$b$c`)."""
    parts = urn.split("::")
    return parts[2] if len(parts) >= 4 else ""


def engine_urn(stack: str, project: str, parent: str, type_: str, name: str) -> str:
    """The URN the engine gives a resource: its parent's whole qualified type, then its own
    (no prefix under the stack itself). `MockMonitor.make_urn` keeps only the parent's last
    type and prefixes top-level resources with the stack's, so its URNs are not the ones
    `pulumi up --target/--replace` takes."""
    parent_type = qualified_type(parent) if parent else ""
    qualified = type_ if parent_type in ("", STACK_TYPE) else f"{parent_type}${type_}"
    return f"urn:pulumi:{stack}::{project}::{qualified}::{name}"
