"""What a rule's check receives: its config defaults under the caller's config."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from policy.rule import UNKNOWN, Resource, Rule, StackRule, known

CONFIG: dict[str, dict[str, Any]] = {
    "ports": {"type": "array", "default": [22]},
    "names": {"type": "array", "default": ["a"]},
    "free": {"type": "string"},
}


def echo(resource: Resource, config: Mapping[str, Any]) -> list[str]:
    return [f"{resource.where()}: {dict(config)}"]


def echo_stack(
    resources: Sequence[Resource], config: Mapping[str, Any]
) -> list[tuple[Resource, str]]:
    return [(r, f"{r.where()}: {dict(config)}") for r in resources]


VM = Resource("oci:Core/instance:Instance", "vm", {})


def test_a_rule_sees_its_defaults_under_the_callers_config() -> None:
    rule = Rule("r", "d", echo, CONFIG)
    assert rule.defaults() == {"ports": [22], "names": ["a"]}
    assert rule(VM) == ["vm (oci:Core/instance:Instance): {'ports': [22], 'names': ['a']}"]
    assert rule(VM, {"ports": [443], "free": "x"}) == [
        "vm (oci:Core/instance:Instance): {'ports': [443], 'names': ['a'], 'free': 'x'}"
    ]
    assert Rule("r", "d", echo).defaults() == {}


def test_a_stack_rule_sees_its_defaults_under_the_callers_config() -> None:
    rule = StackRule("s", "d", echo_stack, CONFIG)
    assert rule.defaults() == {"ports": [22], "names": ["a"]}
    other = Resource("oci:Core/vcn:Vcn", "net", {})
    assert rule.violations(iter([VM, other])) == [
        (VM, "vm (oci:Core/instance:Instance): {'ports': [22], 'names': ['a']}"),
        (other, "net (oci:Core/vcn:Vcn): {'ports': [22], 'names': ['a']}"),
    ]
    assert rule([VM], {"names": []}) == [
        "vm (oci:Core/instance:Instance): {'ports': [22], 'names': []}"
    ]
    assert StackRule("s", "d", echo_stack).defaults() == {}


def test_known_refuses_none_and_the_unknown_placeholder() -> None:
    assert not known(None)
    assert not known(UNKNOWN)
    assert known("") and known(0) and known("x")
