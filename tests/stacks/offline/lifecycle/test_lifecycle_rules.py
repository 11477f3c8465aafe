"""The replacement rules `stacks diff` applies: kept as upstream data, mapped to real names."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import pytest
from pulumi import _types

from bench.sdk_replay import sdk_class
from stacks.offline.lifecycle.replacement_rules import RULES, camel, load_rules
from stacks.offline.plan import REPO, plan_run

UPSTREAM_FILES = ("oci-terraform-forcenew.json", "kubernetes-forcenew.json")
HOW = json.loads((RULES / "rules.json").read_text())
STACKS = sorted(p.name[len("Pulumi.") : -len(".yaml")] for p in REPO.glob("Pulumi.*.yaml"))


@pytest.mark.parametrize("name", UPSTREAM_FILES)
def test_the_rules_are_the_upstream_facts_unmodified(upstream: Path, name: str) -> None:
    assert (RULES / name).read_bytes() == (upstream / "replacements" / name).read_bytes()


def test_every_customize_diff_rule_upstream_is_read_and_none_is_made_up() -> None:
    oci = json.loads((RULES / "oci-terraform-forcenew.json").read_text())
    how = HOW["oci"]
    read = {
        (tf_type, rule["upstream"])
        for tf_type, rules in how["customizeDiff"].items()
        for rule in rules
    }
    upstream = {
        (tf_type, line)
        for tf_type, facts in oci.items()
        if not tf_type.startswith("_")
        for line in facts["customizeDiff"]
        if line not in how["ignoredComments"]
    }
    assert read == upstream
    assert set(how["types"]) == {t for t in oci if not t.startswith("_")}


def test_terraform_paths_become_pulumi_names() -> None:
    assert camel("create_vnic_details.subnet_id") == "createVnicDetails.subnetId"
    assert camel("assign_ipv6ip") == "assignIpv6ip"
    assert camel("shape_availabilities.instance_shape") == "shapeAvailabilities.instanceShape"
    rules = load_rules()
    instance = rules.for_type("oci:Core/instance:Instance").force_new
    assert "createVnicDetails.subnetId" in instance
    assert {"metadata.ssh_authorized_keys", "metadata.user_data", "availabilityDomain"} <= set(
        instance
    )
    assert "displayName" not in instance and "shape" not in instance  # updated in place


@pytest.mark.parametrize("tf_type", sorted(HOW["oci"]["types"]))
def test_each_oci_rule_names_inputs_the_sdk_class_has(tf_type: str) -> None:
    import pulumi_oci  # noqa: F401  (registers the SDK's resource modules)

    token = HOW["oci"]["types"][tf_type]
    cls = sdk_class(token)
    args = getattr(importlib.import_module(cls.__module__), f"{cls.__name__}Args")
    inputs = set(_types.input_type_py_to_pulumi_names(args).values())
    for path in load_rules().for_type(token).force_new:
        assert path.split(".")[0] in inputs, f"{token}: {path} is not one of its inputs"


def test_kubernetes_and_command_rules() -> None:
    rules = load_rules()
    job = rules.for_type("kubernetes:batch/v1:Job")
    assert ".spec.template" in job.force_new and ".metadata.name" in job.force_new
    # deleted first only when named and keeping its name and namespace (delete_first.keeps_name)
    assert not job.delete_before_replace and job.delete_before_replace_if_kept_name
    crd = rules.for_type("kubernetes:trainer.kubeflow.org/v1alpha1:ClusterTrainingRuntimePatch")
    assert crd.force_new == (".metadata.name", ".metadata.namespace")
    assert not crd.delete_before_replace and crd.delete_before_replace_if_kept_name
    helm = rules.for_type("kubernetes:helm.sh/v3:Release")
    assert helm.force_new == (".name", ".namespace") and not helm.delete_before_replace
    assert not helm.delete_before_replace_if_kept_name
    config_map = rules.for_type("kubernetes:core/v1:ConfigMap")
    assert ".data" in config_map.force_new
    mutable = rules.for_type("kubernetes:core/v1:ConfigMap", {"enableConfigMapMutable": True})
    assert ".data" not in mutable.force_new
    for token in ("command:remote:Command", "command:local:Command"):
        command = rules.for_type(token)
        assert command.force_new == ("triggers",) and command.outputs_unknown_on_update
    assert rules.for_type("gpu-ci:host:GpuHost").force_new == ()


@pytest.mark.parametrize("stack", STACKS)
def test_every_provider_resource_an_example_stack_plans_has_rules(stack: str) -> None:
    rules = load_rules()
    for reg in plan_run(stack).registrations:
        if reg.type.startswith(("oci:", "command:", "kubernetes:")):
            assert rules.for_type(reg.type).force_new, f"{stack}: no rules for {reg.type}"
