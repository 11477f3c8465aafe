"""Which inputs of a resource change on the next `pulumi up` (`stacks.offline.lifecycle.inputs`),
on small synthetic resources: what the plans show differently less what the old plan could
not know, secrets by their digests of one scheme, inputs with no recorded source (an invoke
over an unknown id), and inputs unknown at preview because what they come from changes,
certainly (created or replaced) or as a guess (may be replaced, or a command that re-runs:
pulumi-command marks its outputs unknown on update, `outputsUnknownOnUpdate` in
stacks/offline/lifecycle/replacements/)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from stacks.offline.lifecycle.delete_first import SECRET, UNKNOWN
from stacks.offline.lifecycle.inputs import (
    CERTAIN,
    secret_changes,
    seen_changes,
    sourceless_unknown,
    unknown_leaves,
    upstream_unknown,
)
from stacks.offline.lifecycle.replacement_rules import RULES, Rules, rules_from
from stacks.offline.snapshot.paths import MISSING, InputChange
from tests.stacks.offline.synthetic import VCN, res

COMMAND = "command:remote:Command"


@pytest.fixture(scope="module")
def rules() -> Rules:
    return rules_from(RULES)


def test_the_unknown_leaves_of_an_input_or_the_input_itself() -> None:
    inputs = {
        "env": {"A": UNKNOWN, "B": "known", "C": SECRET, "D": [UNKNOWN, "x"]},
        "stdin": "known",
        "whole": UNKNOWN,
    }
    assert unknown_leaves(inputs, "env") == ["env.A", "env.C", "env.D[0]"]
    assert unknown_leaves(inputs, "stdin") == ["stdin"]  # known now: the input as a whole
    assert unknown_leaves(inputs, "whole") == ["whole"]
    assert unknown_leaves(inputs, "absent") == []


def digests(**paths: Any) -> dict[str, Any]:
    return {"secretDigests": paths}


def test_a_secret_changes_where_both_sides_digest_it_by_one_scheme_and_differ() -> None:
    old = digests(z="id1:aa", a="id1:bb", same="id1:cc", legacy="0123", gone="id1:dd")
    new = digests(z="id1:ab", a="id1:bc", same="id1:cc", legacy="id1:ee", added="id1:ff")
    assert secret_changes(old, new) == [
        InputChange("a", SECRET, SECRET),
        InputChange("z", SECRET, SECRET),
    ]
    # two digests of the older, URN-salted scheme (none) compare with each other
    assert secret_changes(digests(k="0123"), digests(k="4567")) == [
        InputChange("k", SECRET, SECRET)
    ]
    # a scheme is everything up to the last colon
    assert secret_changes(digests(k="a:b:0"), digests(k="a:c:1")) == []
    assert secret_changes(digests(k="a:b:0"), digests(k="a:b:1")) == [
        InputChange("k", SECRET, SECRET)
    ]
    # a digest a hand-edited snapshot holds as a number is compared as its text
    assert secret_changes(digests(k=1), digests(k=2)) == [InputChange("k", SECRET, SECRET)]
    assert secret_changes({}, new) == secret_changes({"secretDigests": None}, new) == []
    assert secret_changes(old, {}) == []


def test_an_input_the_old_plan_could_not_know_is_no_change_while_it_is_given() -> None:
    old = {
        "conn": {"host": UNKNOWN, "user": "ubuntu"},
        "vnic": UNKNOWN,
        "env": UNKNOWN,
        "name": UNKNOWN,
        "tags": {"a": "1"},
    }
    new = {
        "conn": {"host": "10.0.0.2", "user": "opc", "port": 22},
        "vnic": {"subnetId": "s", "ips": ["a"]},
        "names": "n",
        "tags": {"a": "2"},
    }
    assert seen_changes(old, new) == [
        InputChange("conn.port", MISSING, 22),
        InputChange("conn.user", "ubuntu", "opc"),
        InputChange("env", UNKNOWN, MISSING),  # no longer given: a change
        InputChange("name", UNKNOWN, MISSING),  # `names` is another input, not under it
        InputChange("names", MISSING, "n"),
        InputChange("tags.a", "1", "2"),
    ]
    assert seen_changes({"a": UNKNOWN}, {"a": UNKNOWN}) == []
    assert seen_changes({"a": "x"}, {"a": UNKNOWN}) == [InputChange("a", "x", UNKNOWN)]


def test_an_unknown_input_without_a_recorded_source_is_sourceless() -> None:
    """Leaves unknown, or secret without a digest (a secret the preview could not know);
    an input with recorded sources is not, nor a secret with its digest."""
    r = res(
        "k8s",
        "pulumi:providers:kubernetes",
        kubeconfig=UNKNOWN,
        nested={"a": ["x", UNKNOWN]},
        token=SECRET,
        password=SECRET,
        fed=UNKNOWN,
        known="x",
    )
    r["secretDigests"] = {"password": "id1:aa"}
    r["propertyDependencies"] = {"fed": ["urn:a"]}
    assert sourceless_unknown(r) == ["kubeconfig", "nested", "token"]
    assert sourceless_unknown({"inputs": {"x": UNKNOWN}}) == ["x"]
    assert sourceless_unknown({}) == []


def fed(r: dict[str, Any], prop: str, *sources: dict[str, Any]) -> dict[str, Any]:
    r["propertyDependencies"][prop] = [s["urn"] for s in sources]
    r["dependencies"] = sorted({*r["dependencies"], *(s["urn"] for s in sources)})
    return r


def unknown(
    r: dict[str, Any], ops: Mapping[str, str | None], *known: dict[str, Any], rules: Rules
) -> dict[str, str]:
    """`upstream_unknown` with `ops` by resource name, `known` the new plan's resources."""
    by_name = {x["name"]: x["urn"] for x in known}
    return upstream_unknown(
        r, {by_name[n]: op for n, op in ops.items()}, {x["urn"]: x for x in known}, rules
    )


def test_an_input_from_a_created_or_replaced_resource_is_certainly_unknown(rules: Rules) -> None:
    net, cmd = res("net"), res("cmd", COMMAND)
    step = fed(res("step", COMMAND, stdin=UNKNOWN, env={"A": UNKNOWN, "B": "b"}), "stdin", net)
    fed(step, "env", cmd, net)
    for op in ("create", "replace"):
        assert unknown(step, {"net": op, "cmd": "update"}, net, cmd, rules=rules) == {
            "stdin": CERTAIN,
            "env.A": CERTAIN,
        }
    assert unknown(step, {"net": "update", "cmd": None}, net, cmd, rules=rules) == {}
    assert unknown(step, {"net": "delete"}, net, cmd, rules=rules) == {}


def test_an_input_from_what_may_be_replaced_or_re_runs_is_a_guess(rules: Rules) -> None:
    """The first source's reason stands, unless a later source is certain; a VCN that
    updates re-runs nothing, a command that updates does."""
    vm, cmd, net = res("vm"), res("cmd", COMMAND), res("net")
    step = fed(res("step", COMMAND, stdin=UNKNOWN), "stdin", vm, cmd)
    may = "it comes from vm, which may be replaced"
    rerun = (
        "it comes from cmd, which re-runs: unknown at preview (so `pulumi preview` shows a "
        "replacement), read again before the `up` diffs it"
    )
    assert unknown(step, {"vm": "may-replace", "cmd": "update"}, vm, cmd, rules=rules) == {
        "stdin": may
    }
    assert unknown(step, {"vm": "update", "cmd": "update"}, vm, cmd, rules=rules) == {
        "stdin": rerun
    }
    assert unknown(step, {"vm": "update", "cmd": "may-replace"}, vm, cmd, rules=rules) == {
        "stdin": "it comes from cmd, which may be replaced"
    }
    assert unknown(step, {"vm": "may-replace", "cmd": "replace"}, vm, cmd, rules=rules) == {
        "stdin": CERTAIN
    }
    other = fed(res("other", COMMAND, stdin=UNKNOWN), "stdin", net)
    assert unknown(other, {"net": "update"}, net, rules=rules) == {}
    # a source the new plan no longer holds is named by its URN
    gone = upstream_unknown(step, {vm["urn"]: "may-replace"}, {cmd["urn"]: cmd}, rules)
    assert gone == {"stdin": f"it comes from {vm['urn']}, which may be replaced"}


def test_a_sourceless_input_comes_from_the_resources_dependencies(rules: Rules) -> None:
    """The OKE provider's kubeconfig is an invoke over the cluster's id: the plan records
    no source for it, so the resource's dependencies stand in."""
    cluster, net = res("cluster", "oci:ContainerEngine/cluster:Cluster"), res("net", VCN)
    k8s = res("k8s", "pulumi:providers:kubernetes", kubeconfig=UNKNOWN, context="c")
    k8s["dependencies"] = [net["urn"], cluster["urn"]]
    ops = {"net": "update", "cluster": "replace"}
    assert unknown(k8s, ops, cluster, net, rules=rules) == {"kubeconfig": CERTAIN}
    k8s["propertyDependencies"]["kubeconfig"] = [net["urn"]]  # recorded: the sources it names
    assert unknown(k8s, ops, cluster, net, rules=rules) == {}
