"""The providers' replacement rules, type by type, exactly as the upstream facts state them.

In-process and uncached (`rules_from`, not the cached `load_rules`), so that mutation testing
sees every rule being read. Expected paths are transcribed from the upstream facts in
`stacks/offline/lifecycle/replacements/` (copies of `../shared/upstream/replacements/`, kept
equal by test_lifecycle_rules.py): terraform-provider-oci @ 8de3c480 (`ForceNew` attributes,
Terraform names; pulumi-oci's are their camelCase) and pulumi-kubernetes @ 94977969 (`diff.go`,
`helm_release.go`); how rules.json reads them (delete first, unknown outputs) is in its
`upstream`/`reading` entries.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from stacks.offline.lifecycle.replacement_rules import (
    RULES,
    Rules,
    TypeRules,
    camel,
    load_rules,
    rules_from,
)

EVERY_KIND = (".metadata.name", ".metadata.namespace")  # diff.go: every kind
SELECTOR = (
    ".spec.selector",
    ".spec.selector.matchExpressions",
    ".spec.selector.matchExpressions.key",
    ".spec.selector.matchExpressions.operator",
    ".spec.selector.matchExpressions.values",
    ".spec.selector.matchLabels",
)


@pytest.fixture
def rules() -> Rules:
    """Read anew for each test: mutation testing credits a rule read to the test that reads
    it, so a module-wide read would leave the later tests' assertions unused."""
    return rules_from(RULES)


def oci(tf_type: str, *paths: str) -> TypeRules:
    """An OCI type's rules: ForceNew paths, never deleted first, outputs known after an
    update (rules.json `oci`: pulumi-terraform-bridge's Diff and the bridge's reading)."""
    return TypeRules(paths, False, False, f"terraform-provider-oci {tf_type}")


def kubernetes(kind: str, *paths: str) -> TypeRules:
    """A Kubernetes kind's rules: deleted first only when named and keeping its name
    (rules.json `deleteBeforeReplaceWhenNamedAndKept`, provider.go Diff)."""
    return TypeRules(
        (*EVERY_KIND, *paths),
        source=f"pulumi-kubernetes diff.go {kind}",
        delete_before_replace_if_kept_name=True,
    )


def test_the_cached_rules_are_the_rules_of_the_replacements_folder(rules: Rules) -> None:
    assert load_rules() == rules


@pytest.mark.parametrize(
    ("token", "expected"),
    [
        (
            "oci:Core/vcn:Vcn",
            oci(
                "oci_core_vcn",
                "cidrBlock",
                "dnsLabel",
                "ipv6privateCidrBlocks",
                "isOracleGuaAllocationEnabled",
            ),
        ),
        (
            "oci:Core/subnet:Subnet",
            oci(
                "oci_core_subnet",
                "availabilityDomain",
                "dnsLabel",
                "prohibitInternetIngress",
                "prohibitPublicIpOnVnic",
                "vcnId",
            ),
        ),
        ("oci:Core/internetGateway:InternetGateway", oci("oci_core_internet_gateway", "vcnId")),
        (
            "oci:Core/networkSecurityGroup:NetworkSecurityGroup",
            oci("oci_core_network_security_group", "vcnId"),
        ),
        (
            "oci:Core/networkSecurityGroupSecurityRule:NetworkSecurityGroupSecurityRule",
            oci("oci_core_network_security_group_security_rule", "networkSecurityGroupId"),
        ),
        ("oci:Core/routeTable:RouteTable", oci("oci_core_route_table", "vcnId")),
        ("oci:Core/securityList:SecurityList", oci("oci_core_security_list", "vcnId")),
        (
            "oci:ContainerEngine/nodePool:NodePool",
            oci(
                "oci_containerengine_node_pool",
                "clusterId",
                "compartmentId",
                "nodeConfigDetails.computeClusterId",
                "nodeConfigDetails.nodePoolPodNetworkOptionDetails.cniType",
                "nodeImageId",
                "nodeImageName",
            ),
        ),
        (
            "oci:Core/computeCapacityReport:ComputeCapacityReport",
            oci(
                "oci_core_compute_capacity_report",
                "availabilityDomain",
                "compartmentId",
                "shapeAvailabilities",
                "shapeAvailabilities.faultDomain",
                "shapeAvailabilities.instanceShape",
                "shapeAvailabilities.instanceShapeConfig",
                "shapeAvailabilities.instanceShapeConfig.baselineOcpuUtilization",
                "shapeAvailabilities.instanceShapeConfig.memoryInGbs",
                "shapeAvailabilities.instanceShapeConfig.nvmes",
                "shapeAvailabilities.instanceShapeConfig.ocpus",
            ),
        ),
        (
            # ForceNew, then CustomizeDiff's ForceNewIfChange on endpoint_config.0.subnet_id
            "oci:ContainerEngine/cluster:Cluster",
            oci(
                "oci_containerengine_cluster",
                "clusterPodNetworkOptions",
                "clusterPodNetworkOptions.cniType",
                "compartmentId",
                "kmsKeyId",
                "options.ipFamilies",
                "options.kubernetesNetworkConfig",
                "options.kubernetesNetworkConfig.podsCidr",
                "options.kubernetesNetworkConfig.servicesCidr",
                "options.serviceLbSubnetIds",
                "vcnId",
                "endpointConfig.subnetId",
            ),
        ),
    ],
)
def test_each_oci_type_replaces_on_its_force_new_attributes_in_pulumi_names(
    rules: Rules, token: str, expected: TypeRules
) -> None:
    assert rules.for_type(token) == expected
    assert rules.exact[token] == expected


def test_an_instance_replaces_on_its_force_new_attributes_then_its_customize_diff_rules(
    rules: Rules,
) -> None:
    """core_instance_resource.go: 47 ForceNew attributes, then CustomizeDiff's: the two
    metadata keys (ForceNewIfChange("metadata", ...)), platform_config.0.type, and the two
    ForceNewIf fields read conservatively as always."""
    instance = rules.for_type("oci:Core/instance:Instance")
    assert instance.source == "terraform-provider-oci oci_core_instance"
    assert (instance.delete_before_replace, instance.outputs_unknown_on_update) == (False, False)
    assert not instance.delete_before_replace_if_kept_name
    assert instance.force_new[:4] == (
        "availabilityDomain",
        "clusterPlacementGroupId",
        "computeClusterId",
        "createVnicDetails.assignIpv6ip",
    )
    assert instance.force_new[-6:] == (
        "subnetId",
        "metadata.ssh_authorized_keys",  # map keys keep their spelling
        "metadata.user_data",
        "platformConfig.type",
        "platformConfig.configMap",
        "platformConfig.isSymmetricMultiThreadingEnabled",
    )
    assert len(instance.force_new) == 47 + 5
    assert {
        "createVnicDetails.subnetId",
        "sourceDetails.instanceSourceImageFilterDetails.operatingSystemVersion",
        "preemptibleInstanceConfig.preemptionAction.preserveBootVolume",
        "launchOptions.isConsistentVolumeNamingEnabled",
    } <= set(instance.force_new)
    # updated in place: not ForceNew upstream
    assert not {"displayName", "shape", "shapeConfig", "metadata"} & set(instance.force_new)


@pytest.mark.parametrize(
    ("token", "expected"),
    [
        ("kubernetes:apps/v1:Deployment", kubernetes("Deployment", *SELECTOR)),
        (
            "kubernetes:batch/v1:Job",
            kubernetes(
                "Job",
                ".spec.completions",
                ".spec.parallelism",
                ".spec.selector",
                ".spec.template",
                *SELECTOR[1:],
            ),
        ),
        (
            "kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding",
            kubernetes("ClusterRoleBinding", ".roleRef"),
        ),
        (
            "kubernetes:storage.k8s.io/v1:StorageClass",
            kubernetes("StorageClass", ".parameters", ".provisioner"),
        ),
        ("kubernetes:core/v1:Service", kubernetes("Service", ".spec.clusterIP")),
    ],
)
def test_each_listed_kubernetes_kind_replaces_on_its_fields_and_every_kinds(
    rules: Rules, token: str, expected: TypeRules
) -> None:
    assert rules.for_type(token) == expected
    assert rules.for_type(token, {"enableConfigMapMutable": True}) == expected


def test_an_unlisted_kubernetes_kind_replaces_on_its_name_and_namespace_only(
    rules: Rules,
) -> None:
    every = TypeRules(
        EVERY_KIND,
        source="pulumi-kubernetes diff.go: every kind",
        delete_before_replace_if_kept_name=True,
    )
    for token in (
        "kubernetes:trainer.kubeflow.org/v1alpha1:ClusterTrainingRuntimePatch",
        "kubernetes:core/v1:Namespace",
        "kubernetes:core/v1:ServiceAccount",
    ):
        assert rules.for_type(token) == every
        assert token not in rules.exact


def test_a_config_map_replaces_on_its_data_unless_the_provider_makes_it_mutable(
    rules: Rules,
) -> None:
    token = "kubernetes:core/v1:ConfigMap"
    every = TypeRules(
        EVERY_KIND,
        source="pulumi-kubernetes diff.go: every kind",
        delete_before_replace_if_kept_name=True,
    )
    data = TypeRules(
        (*EVERY_KIND, ".binaryData", ".data"),
        source="pulumi-kubernetes diff.go: every kind",
        delete_before_replace_if_kept_name=True,
    )
    assert rules.for_type(token) == data
    assert rules.for_type(token, {}) == data
    assert rules.for_type(token, {"enableConfigMapMutable": False}) == data
    assert rules.for_type(token, {"enableSecretMutable": True}) == data  # the other flag
    assert rules.for_type(token, {"enableConfigMapMutable": True}) == every


def test_a_secret_replaces_on_its_type_and_data_unless_the_provider_makes_it_mutable(
    rules: Rules,
) -> None:
    token = "kubernetes:core/v1:Secret"
    immutable = kubernetes("Secret", ".type", ".type", ".stringData", ".data")
    assert rules.for_type(token) == immutable
    assert rules.for_type(token, {"enableConfigMapMutable": True}) == immutable
    assert rules.for_type(token, {"enableSecretMutable": False}) == immutable
    assert rules.for_type(token, {"enableSecretMutable": True}) == kubernetes("Secret", ".type")


def test_a_helm_release_and_the_command_types(rules: Rules) -> None:
    assert rules.for_type("kubernetes:helm.sh/v3:Release") == TypeRules(
        (".name", ".namespace"), False, source="pulumi-kubernetes helm_release.go"
    )
    command = TypeRules(("triggers",), False, True, "pulumi-command")
    for token in ("command:local:Command", "command:remote:Command", "command:remote:CopyToRemote"):
        assert rules.for_type(token) == command


def test_types_no_rule_names_have_none(rules: Rules) -> None:
    """A type no rule covers has empty rules and is not `known`: the lifecycle reads a
    change of it as `cannot predict`, never as a safe update (rules.json `unknownTypes`)."""
    for token in ("gpu-ci:host:GpuHost", "random:index/randomUuid:RandomUuid", "aws:s3:Bucket"):
        assert rules.for_type(token) == TypeRules()
        assert rules.for_type(token, {"enableConfigMapMutable": True}) == TypeRules()
        assert not rules.known(token)
    for token in ("random:index/randomPassword:RandomPassword", "pulumi:providers:kubernetes"):
        assert rules.known(token)
    assert rules.known("kubernetes:example.com/v1:Anything")  # every kind: diff.go


def test_the_rules_beside_the_per_type_ones(rules: Rules) -> None:
    assert rules.kubernetes_every_kind == EVERY_KIND
    assert rules.kubernetes_named_dbr is True
    assert rules.config_map_unless_mutable == (".binaryData", ".data")
    assert rules.secret_unless_mutable == (".type", ".stringData", ".data")
    assert rules.kubeconfig_unknown_replaces is True
    assert rules.provider_change_skips_diff is True
    tokens = set(rules.exact)
    assert len([t for t in tokens if t.startswith("oci:")]) == 11
    assert {t for t in tokens if t.startswith("command:")} == {
        "command:local:Command",
        "command:remote:Command",
        "command:remote:CopyToRemote",
    }
    kinds = json.loads((RULES / "kubernetes-forcenew.json").read_text())["kinds"]
    listed = {f"kubernetes:{gv}:{kind}" for gv, by_kind in kinds.items() for kind in by_kind}
    assert {t for t in tokens if t.startswith("kubernetes:")} == listed | {
        "kubernetes:helm.sh/v3:Release"
    }


def _edit(path: Path, change: Any) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


def test_every_flag_is_read_from_the_files_not_assumed(tmp_path: Path) -> None:
    """Each of rules.json's (and the Helm entry's) statements, flipped in a copy of the
    folder, flips the rule read from it: none is a constant of the code. A flag is either
    a bare boolean or an object with a `value`."""
    folder = tmp_path / "replacements"
    shutil.copytree(RULES, folder)

    def flip(how: dict[str, Any]) -> None:
        how["oci"]["deleteBeforeReplace"]["value"] = True
        how["oci"]["outputsUnknownOnUpdate"] = True
        how["oci"]["customizeDiff"]["oci_core_vcn"] = [{"upstream": "x", "paths": ["displayName"]}]
        k8s = how["kubernetes"]
        k8s["deleteBeforeReplaceWhenNamedAndKept"]["value"] = False
        k8s["kubeconfigUnknownReplacesProvider"]["value"] = False
        how["command"]["deleteBeforeReplace"] = True
        how["command"]["outputsUnknownOnUpdate"]["value"] = False
        how["command"]["types"] = ["command:local:Command"]
        how["command"]["forceNew"] = ["triggers", "create"]
        how["engine"]["providerChangeSkipsDiff"]["value"] = False

    def helm_first(facts: dict[str, Any]) -> None:
        facts["helmReleaseV3"]["deleteBeforeReplace"] = True
        facts["everyKind"] = [".metadata.name"]
        facts["configMapUnlessMutable"] = [".data"]
        facts["secretUnlessMutable"] = [".stringData"]

    _edit(folder / "rules.json", flip)
    _edit(folder / "kubernetes-forcenew.json", helm_first)
    flipped = rules_from(folder)
    assert flipped.for_type("oci:Core/vcn:Vcn") == TypeRules(
        (
            "cidrBlock",
            "dnsLabel",
            "ipv6privateCidrBlocks",
            "isOracleGuaAllocationEnabled",
            "displayName",  # the CustomizeDiff rule added above
        ),
        True,
        True,
        "terraform-provider-oci oci_core_vcn",
    )
    assert flipped.for_type("kubernetes:core/v1:Service") == TypeRules(
        (".metadata.name", ".spec.clusterIP"), source="pulumi-kubernetes diff.go Service"
    )
    assert flipped.for_type("kubernetes:core/v1:Namespace") == TypeRules(
        (".metadata.name",), source="pulumi-kubernetes diff.go: every kind"
    )
    assert flipped.for_type("kubernetes:core/v1:ConfigMap").force_new == (".metadata.name", ".data")
    assert flipped.for_type("kubernetes:core/v1:Secret").force_new == (
        ".metadata.name",
        ".type",
        ".stringData",
    )
    assert flipped.for_type("kubernetes:helm.sh/v3:Release") == TypeRules(
        (".name", ".namespace"), True, source="pulumi-kubernetes helm_release.go"
    )
    assert flipped.for_type("command:local:Command") == TypeRules(
        ("triggers", "create"), True, False, "pulumi-command"
    )
    assert flipped.for_type("command:remote:Command") == TypeRules()
    assert (flipped.kubernetes_named_dbr, flipped.kubeconfig_unknown_replaces) == (False, False)
    assert flipped.provider_change_skips_diff is False
    assert flipped.kubernetes_every_kind == (".metadata.name",)


@pytest.mark.parametrize(
    ("terraform", "pulumi"),
    [
        ("create_vnic_details.subnet_id", "createVnicDetails.subnetId"),
        ("assign_ipv6ip", "assignIpv6ip"),
        ("vcn_id", "vcnId"),
        ("image", "image"),
        (
            "shape_availabilities.instance_shape_config.memory_in_gbs",
            ("shapeAvailabilities.instanceShapeConfig.memoryInGbs"),
        ),
        (
            "node_config_details.node_pool_pod_network_option_details.cni_type",
            ("nodeConfigDetails.nodePoolPodNetworkOptionDetails.cniType"),
        ),
    ],
)
def test_terraform_attribute_paths_become_pulumi_property_paths(
    terraform: str, pulumi: str
) -> None:
    assert camel(terraform) == pulumi
