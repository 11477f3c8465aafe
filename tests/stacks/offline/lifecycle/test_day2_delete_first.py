"""Day 2: which replacements delete the old resource first (`Fate.delete_before_replace`).

The engine deletes first when the resource's own `deleteBeforeReplace` says so, or else
when its provider's `Diff` asks (`stacks/offline/lifecycle/replacements/rules.json`):
pulumi-kubernetes only for an object that is named in its inputs and keeps its name and namespace;
Helm, pulumi-command and OCI never. A resource replaced because of its provider (replaced, or
another provider resource) never reaches the provider's `Diff`, so then only its option counts.
Every scenario states every changed resource: its operation, why it is replaced and whether the old
one goes first.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from collections.abc import Callable
from typing import Any

import pytest

from stacks.offline.diff.changes import diff_snapshots
from stacks.offline.lifecycle.delete_first import UNKNOWN, keeps_name
from stacks.offline.lifecycle.fate import PROVIDER, Lifecycle, classify
from stacks.offline.lifecycle.replacement_rules import RULES, load_rules
from stacks.offline.snapshot.shape import Snapshot
from tests.stacks.offline.engine.test_engine_offline import _resource as engine_resource
from tests.stacks.offline.lifecycle.test_day2 import base_plan

Outcome = dict[tuple[str, str], tuple[str, tuple[str, ...], bool]]

CONFIG_MAP = "kubernetes:core/v1:ConfigMap"
JOB = "kubernetes:batch/v1:Job"
RELEASE = "kubernetes:helm.sh/v3:Release"
K8S = "pulumi:providers:kubernetes"
DASHBOARD = ("monitoring-dashboard-gpu-ci", CONFIG_MAP)
CHECK_JOB = ("platform-checks-check-nvidia-smi", JOB)
OPERATOR = ("platform-gpu-operator", RELEASE)


def outcome(lifecycle: Lifecycle) -> Outcome:
    """(name, type) -> (operation, replaced because, deleted first), every changed resource."""
    return {
        (f.name, f.type): (str(f.op), f.replace_because, f.delete_before_replace)
        for f in lifecycle.changed
    }


def edited(key: tuple[str, str], edit: Callable[[dict[str, Any]], None]) -> Lifecycle:
    """The dev stack as planned, against the same with one resource edited."""
    base = base_plan("dev")
    head = copy.deepcopy(base)
    (found,) = [r for r in head["resources"] if (r["name"], r["type"]) == key]
    before = copy.deepcopy(found)
    edit(found)
    assert found != before, "the edit must change the resource"
    return classify(base, head)


# -- pulumi-kubernetes: named and kept, or not ----------------------------------------------


def test_new_data_in_a_named_config_map_deletes_it_first() -> None:
    """Its name and namespace stay: two objects cannot share them, so the old goes first."""

    def data(r: dict[str, Any]) -> None:
        r["inputs"]["data"]["gpu-ci.json"] += " "

    assert outcome(edited(DASHBOARD, data)) == {
        DASHBOARD: ("replace", ('data["gpu-ci.json"]',), True)
    }


def test_a_renamed_config_map_is_created_first() -> None:
    def rename(r: dict[str, Any]) -> None:
        r["inputs"]["metadata"]["name"] = "gpu-ci-dashboard-v2"

    assert outcome(edited(DASHBOARD, rename)) == {DASHBOARD: ("replace", ("metadata.name",), False)}


def test_a_config_map_moved_to_another_namespace_is_created_first() -> None:
    def move(r: dict[str, Any]) -> None:
        r["inputs"]["metadata"]["namespace"] = "observability"

    assert outcome(edited(DASHBOARD, move)) == {
        DASHBOARD: ("replace", ("metadata.namespace",), False)
    }


def test_a_name_unknown_at_preview_is_read_as_kept() -> None:
    """Conservative: the `up` resolves the name before the provider diffs, and if it is the
    same the old object must go first; the diff warns of that order."""

    def unknown(r: dict[str, Any]) -> None:
        r["inputs"]["metadata"]["name"] = UNKNOWN

    assert outcome(edited(DASHBOARD, unknown)) == {DASHBOARD: ("replace", ("metadata.name",), True)}


def test_an_object_that_drops_its_name_is_auto_named_and_created_first() -> None:
    def unname(r: dict[str, Any]) -> None:
        del r["inputs"]["metadata"]["name"]

    assert outcome(edited(DASHBOARD, unname)) == {DASHBOARD: ("replace", ("metadata.name",), False)}


def test_an_auto_named_job_is_created_first_unless_its_option_says_otherwise() -> None:
    """The smoke-check Jobs have no `.metadata.name`: pulumi-kubernetes names them
    `<name>-<random>`, so a new template is a new Job beside the old."""
    template = 'spec.template.metadata.annotations["gpu-ci/platform-revision"]'

    def revision(r: dict[str, Any]) -> None:
        r["inputs"]["spec"]["template"]["metadata"]["annotations"]["gpu-ci/platform-revision"] = (
            "other"
        )

    assert "name" not in base_job()["inputs"]["metadata"]
    assert outcome(edited(CHECK_JOB, revision)) == {CHECK_JOB: ("replace", (template,), False)}

    def revision_first(r: dict[str, Any]) -> None:
        revision(r)
        r["options"]["deleteBeforeReplace"] = True

    assert outcome(edited(CHECK_JOB, revision_first)) == {CHECK_JOB: ("replace", (template,), True)}


def test_an_auto_named_job_given_a_name_is_created_first() -> None:
    """Its live name was generated, so the named one does not collide with it."""

    def name(r: dict[str, Any]) -> None:
        r["inputs"]["metadata"]["name"] = "check-nvidia-smi"

    assert outcome(edited(CHECK_JOB, name)) == {CHECK_JOB: ("replace", ("metadata.name",), False)}


def test_a_helm_release_is_never_deleted_first_by_its_provider() -> None:
    """helm_release.go's Diff: `DeleteBeforeReplace: false`; only the option can."""

    def rename(r: dict[str, Any]) -> None:
        r["inputs"]["name"] = "gpu-operator-2"

    assert outcome(edited(OPERATOR, rename)) == {OPERATOR: ("replace", ("name",), False)}

    def rename_first(r: dict[str, Any]) -> None:
        rename(r)
        r["options"]["deleteBeforeReplace"] = True

    assert outcome(edited(OPERATOR, rename_first)) == {OPERATOR: ("replace", ("name",), True)}


def base_job() -> dict[str, Any]:
    jobs: list[dict[str, Any]] = [
        r for r in base_plan("dev")["resources"] if (r["name"], r["type"]) == CHECK_JOB
    ]
    (job,) = jobs
    return job


@pytest.mark.parametrize(
    ("old", "new", "kept"),
    [
        ({"name": "a", "namespace": "x"}, {"name": "a", "namespace": "x"}, True),
        ({"name": "a"}, {"name": "a", "namespace": "default"}, True),  # canonicalNamespace
        ({"name": "a", "namespace": "default"}, {"name": "a"}, True),
        ({"name": "a"}, {"name": "a"}, True),
        ({"name": "a", "namespace": "x"}, {"name": "a", "namespace": "y"}, False),
        ({"name": "a"}, {"name": "a", "namespace": "y"}, False),
        ({"name": "a"}, {"name": "b"}, False),
        ({}, {"name": "a"}, False),  # was auto-named: its live name was generated
        ({"name": "a"}, {}, False),  # auto-named now
        ({}, {}, False),
        ({"generateName": "a-"}, {"generateName": "a-"}, False),
        ({"name": "a"}, {"name": UNKNOWN}, True),
        ({"name": UNKNOWN}, {"name": "a"}, True),
        ({"name": "a", "namespace": "x"}, {"name": "a", "namespace": UNKNOWN}, True),
        ({"name": "a", "namespace": UNKNOWN}, {"name": "a", "namespace": "x"}, True),
    ],
)
def test_keeps_name_compares_the_old_and_new_metadata(
    old: dict[str, Any], new: dict[str, Any], kept: bool
) -> None:
    assert keeps_name({"metadata": old}, {"metadata": new}) is kept


def test_keeps_name_without_or_with_unknown_metadata() -> None:
    assert keeps_name({}, {}) is False  # no metadata at all: auto-named
    assert keeps_name({"metadata": UNKNOWN}, {"metadata": {"name": "a"}}) is True
    assert keeps_name({"metadata": {"name": "a"}}, {"metadata": UNKNOWN}) is True


# -- a resource whose provider changes ------------------------------------------------------


def _resource(urn: str, type_: str, name: str, **inputs: Any) -> dict[str, Any]:
    """A hand-made snapshot resource (`test_engine_offline`'s) under the given URN."""
    return {**engine_resource(name, type_, **inputs), "urn": urn}


def _provider(name: str, urn: str = "", kubeconfig: str = "cfg") -> dict[str, Any]:
    return _resource(urn or f"urn:pulumi:s::p::{K8S}::{name}", K8S, name, kubeconfig=kubeconfig)


def _config_map(provider: str, **opts: Any) -> dict[str, Any]:
    cm = _resource(
        f"urn:pulumi:s::p::{CONFIG_MAP}::cm",
        CONFIG_MAP,
        "cm",
        metadata={"name": "cm", "namespace": "apps"},
        data={"k": "v"},
    )
    cm["options"].update(provider=provider, **opts)
    return cm


def _snap(*resources: dict[str, Any]) -> Snapshot:
    return {"project": "p", "stack": "s", "resources": list(resources), "outputs": {}}


A, B = _provider("k8s-a"), _provider("k8s-b")
CM = ("cm", CONFIG_MAP)


def _moved(old_provider: str, new_provider: str, **opts: Any) -> Lifecycle:
    base = _snap(A, B, _config_map(old_provider, **opts))
    return classify(base, _snap(A, B, _config_map(new_provider, **opts)))


def test_the_same_provider_under_a_new_urn_form_moves_nothing() -> None:
    """The provider's URN spelling changed (as between the mock engine's and the engine's),
    not the provider: the resource keeps it and nothing is replaced."""
    old_a = _provider("k8s-a", f"urn:pulumi:s::p::pulumi:pulumi:Stack${K8S}::k8s-a")
    base = _snap(old_a, _config_map(old_a["urn"]))
    head = _snap(A, _config_map(A["urn"]))
    result = classify(base, head)
    assert outcome(result) == {}
    assert result.of("k8s-a").previous_urn == old_a["urn"]
    assert result.of("cm").op is None
    # the same, when the old URN form is only an alias of the new one
    aliased = copy.deepcopy(A)
    aliased["urn"] = A["urn"].replace("::k8s-a", "::k8s-a2")
    aliased["aliases"] = [A["urn"]]
    assert (
        outcome(
            classify(_snap(A, _config_map(A["urn"])), _snap(aliased, _config_map(aliased["urn"])))
        )
        == {}
    )


def test_a_move_to_another_provider_resource_replaces_and_creates_first() -> None:
    """A named ConfigMap that keeps its name would be deleted first by pulumi-kubernetes'
    Diff, but a replacement for "provider" never reaches it."""
    assert outcome(_moved(A["urn"], B["urn"])) == {CM: ("replace", (PROVIDER,), False)}
    assert outcome(_moved(B["urn"], A["urn"])) == {CM: ("replace", (PROVIDER,), False)}
    # only its own option makes it go first
    first = _moved(A["urn"], B["urn"], deleteBeforeReplace=True)
    assert outcome(first) == {CM: ("replace", (PROVIDER,), True)}


def test_a_move_with_a_data_change_still_skips_the_providers_delete_first() -> None:
    base = _snap(A, B, _config_map(A["urn"]))
    cm = _config_map(B["urn"])
    cm["inputs"]["data"] = {"k": "w"}
    assert outcome(classify(base, _snap(A, B, cm))) == {
        CM: ("replace", ("data.k", PROVIDER), False)
    }


def test_a_move_between_the_default_provider_and_an_explicit_one_replaces() -> None:
    assert outcome(_moved("", A["urn"])) == {CM: ("replace", (PROVIDER,), False)}
    assert outcome(_moved(A["urn"], "")) == {CM: ("replace", (PROVIDER,), False)}
    assert outcome(_moved("", A["urn"], deleteBeforeReplace=True)) == {
        CM: ("replace", (PROVIDER,), True)
    }
    assert outcome(_moved(A["urn"], "", deleteBeforeReplace=True)) == {
        CM: ("replace", (PROVIDER,), True)
    }
    assert outcome(_moved("", "")) == {}
    assert outcome(_moved(A["urn"], A["urn"])) == {}


def test_a_snapshot_from_before_options_were_recorded_moves_nothing() -> None:
    old = _config_map("")
    del old["options"]
    assert outcome(classify(_snap(A, old), _snap(A, _config_map(A["urn"])))) == {}


def test_a_replaced_provider_replaces_its_objects_and_none_goes_first() -> None:
    base = _snap(A, _config_map(A["urn"]))
    head = _snap(_provider("k8s-a", kubeconfig=UNKNOWN), _config_map(A["urn"]))
    assert outcome(classify(base, head)) == {
        ("k8s-a", K8S): ("replace", ("kubeconfig",), False),
        CM: ("replace", (PROVIDER,), False),
    }
    head_first = _snap(
        _provider("k8s-a", kubeconfig=UNKNOWN), _config_map(A["urn"], deleteBeforeReplace=True)
    )
    assert outcome(classify(base, head_first)) == {
        ("k8s-a", K8S): ("replace", ("kubeconfig",), False),
        CM: ("replace", (PROVIDER,), True),
    }


def test_the_skip_is_the_engines_rule_as_rules_json_states_it() -> None:
    """With `providerChangeSkipsDiff` off, the provider's own rule would decide."""
    rules = load_rules()
    assert rules.provider_change_skips_diff
    off = dataclasses.replace(rules, provider_change_skips_diff=False)
    base = _snap(A, B, _config_map(A["urn"]))
    moved = classify(base, _snap(A, B, _config_map(B["urn"])), off)
    assert outcome(moved) == {CM: ("replace", (PROVIDER,), True)}


# -- the rules data names its sources --------------------------------------------------------


def test_every_delete_first_rule_names_the_upstream_line_it_comes_from() -> None:
    how = json.loads((RULES / "rules.json").read_text())
    rules = [
        how["oci"]["deleteBeforeReplace"],
        how["kubernetes"]["deleteBeforeReplaceWhenNamedAndKept"],
        how["kubernetes"]["helmRelease"],
        how["command"]["deleteBeforeReplace"],
        how["engine"]["providerChangeSkipsDiff"],
        how["engine"]["deleteBeforeReplace"],
    ]
    for rule in rules:
        upstream = rule["upstream"]
        assert {"repository", "file", "function", "lines"} <= set(upstream), rule
        assert upstream["lines"] and rule["reading"]
    k8s = how["kubernetes"]["deleteBeforeReplaceWhenNamedAndKept"]["upstream"]["lines"]
    assert any("!metadata.IsAutonamed(newInputs)" in line for line in k8s)
    assert any("newInputs.GetName() == oldLive.GetName()" in line for line in k8s)
    engine = how["engine"]["providerChangeSkipsDiff"]["upstream"]["lines"]
    assert any('ReplaceKeys: []resource.PropertyKey{"provider"}' in line for line in engine)


def test_the_helm_reading_matches_the_upstream_fact() -> None:
    how = json.loads((RULES / "rules.json").read_text())
    facts = json.loads((RULES / "kubernetes-forcenew.json").read_text())
    assert how["kubernetes"]["helmRelease"]["deleteBeforeReplace"] is False
    assert facts["helmReleaseV3"]["deleteBeforeReplace"] is False
    rules = load_rules()
    for token in ("command:remote:Command", "command:local:Command", "oci:Core/instance:Instance"):
        found = rules.for_type(token)
        assert not found.delete_before_replace and not found.delete_before_replace_if_kept_name


# -- a change that deletes two resources -----------------------------------------------------


def test_a_change_that_deletes_two_resources_lists_both() -> None:
    """The deletions come last in the engine's fates; every one of them is listed, and the
    update and the unchanged resource are still counted."""
    vcn = "oci:Core/vcn:Vcn"
    keep = _resource(f"urn:pulumi:s::p::{vcn}::keep", vcn, "keep", dnsLabel="k")
    moved = _resource(f"urn:pulumi:s::p::{vcn}::moved", vcn, "moved", displayName="a")
    gone1 = _resource(f"urn:pulumi:s::p::{vcn}::gone-1", vcn, "gone-1")
    gone2 = _resource(f"urn:pulumi:s::p::{vcn}::gone-2", vcn, "gone-2")
    base = _snap(gone1, gone2, keep, moved)
    renamed = copy.deepcopy(moved)
    renamed["inputs"]["displayName"] = "b"
    head = _snap(keep, renamed)
    d = diff_snapshots(base, head)
    assert [(c.op, c.name, c.delete_before_replace) for c in d.resources] == [
        ("delete", "gone-1", False),
        ("delete", "gone-2", False),
        ("update", "moved", False),
    ]
    assert d.unchanged == 1
    assert [(c["op"], c["name"]) for c in d.as_json()["changes"]] == [
        ("delete", "gone-1"),
        ("delete", "gone-2"),
        ("update", "moved"),
    ]


# -- other providers ---------------------------------------------------------------------------


def test_an_oci_instance_is_never_read_by_the_kubernetes_name_rule() -> None:
    """An instance's `metadata` is a map of its own: a `name` key there is no object name."""
    instance = "oci:Core/instance:Instance"
    vm = _resource(
        f"urn:pulumi:s::p::{instance}::vm", instance, "vm", metadata={"name": "x", "user_data": "a"}
    )
    head = copy.deepcopy(vm)
    head["inputs"]["metadata"]["user_data"] = "b"
    assert outcome(classify(_snap(vm), _snap(head))) == {
        ("vm", instance): ("replace", ("metadata.user_data",), False)
    }


def test_a_provider_that_always_deletes_first_does_so_unless_the_provider_caused_it() -> None:
    """No provider gpu-ci uses asks for it on every replacement; a rule that did would
    apply to the resource's own changes, never to a replacement for "provider"."""
    rules = load_rules()
    vcn = "oci:Core/vcn:Vcn"
    always = dataclasses.replace(
        rules,
        exact={
            **rules.exact,
            vcn: dataclasses.replace(rules.exact[vcn], delete_before_replace=True),
        },
    )
    net = _resource(f"urn:pulumi:s::p::{vcn}::net", vcn, "net", dnsLabel="a")
    relabelled = copy.deepcopy(net)
    relabelled["inputs"]["dnsLabel"] = "b"
    assert outcome(classify(_snap(net), _snap(relabelled), always)) == {
        ("net", vcn): ("replace", ("dnsLabel",), True)
    }
    assert outcome(classify(_snap(net), _snap(relabelled))) == {
        ("net", vcn): ("replace", ("dnsLabel",), False)
    }
    oci = "pulumi:providers:oci"
    old_p = _resource(f"urn:pulumi:s::p::{oci}::oci-a", oci, "oci-a", region="a")
    new_p = _resource(f"urn:pulumi:s::p::{oci}::oci-b", oci, "oci-b", region="b")
    net["options"]["provider"] = old_p["urn"]
    moved = copy.deepcopy(net)
    moved["options"]["provider"] = new_p["urn"]
    assert outcome(classify(_snap(old_p, net), _snap(new_p, moved), always)) == {
        ("oci-b", oci): ("create", (), False),
        ("oci-a", oci): ("delete", (), False),
        ("net", vcn): ("replace", (PROVIDER,), False),
    }
