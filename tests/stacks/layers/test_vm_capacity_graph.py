"""The VM-capacity graph: components, parents, edges, options and inputs as registered."""

from __future__ import annotations

import base64

import pytest
import yaml

from stacks.offline.engine.records import ProgramRun
from tests.stacks.stack_helpers import (
    COMPARTMENT,
    SSH_KEY,
    TENANCY,
    children_of,
    run_stack,
    vm_stack,
)

INSTANCE = "oci:Core/instance:Instance"
RULE = "oci:Core/networkSecurityGroupSecurityRule:NetworkSecurityGroupSecurityRule"
REPORT = "oci:Core/computeCapacityReport:ComputeCapacityReport"


@pytest.fixture(scope="module")
def dev() -> ProgramRun:
    return run_stack(vm_stack())


def test_components_and_their_children(dev: ProgramRun) -> None:
    capacity = dev.one("gpu-ci:capacity:VmCapacity")
    assert capacity.parent.endswith("pulumi:pulumi:Stack::gpu-ci-test")
    assert {r.type for r in children_of(dev, capacity)} == {
        "gpu-ci:network:OciNetwork",
        "gpu-ci:capacity:OciPlacement",
        "gpu-ci:capacity:OciGpuInstance",
    }
    network = dev.one("gpu-ci:network:OciNetwork")
    assert sorted(r.name for r in children_of(dev, network)) == [
        "network-egress",
        "network-egress-only",
        "network-igw",
        "network-nsg",
        "network-routes",
        "network-ssh-198-51-100-0-24",
        "network-subnet",
        "network-vcn",
    ]
    vm = dev.one("gpu-ci:capacity:OciGpuInstance", "gpu-vm-0")
    assert [r.urn for r in children_of(dev, vm)] == [dev.one(INSTANCE).urn]


def test_every_custom_resource_is_inside_a_component(dev: ProgramRun) -> None:
    components = {r.urn for r in dev.registrations if not r.custom}
    assert all(r.parent in components for r in dev.registrations if r.custom)


def test_instances_wait_for_the_whole_network_and_placement(dev: ProgramRun) -> None:
    vm = dev.one("gpu-ci:capacity:OciGpuInstance")
    network_children = {r.urn for r in children_of(dev, dev.one("gpu-ci:network:OciNetwork"))}
    assert network_children <= set(vm.dependencies)
    instance = dev.one(INSTANCE)
    assert set(instance.property_dependencies["createVnicDetails"]) == {
        dev.urn_of("network-nsg"),
        dev.urn_of("network-subnet"),
    }


def test_network_edges(dev: ProgramRun) -> None:
    subnet = dev.one("oci:Core/subnet:Subnet")
    assert set(subnet.dependencies) == {
        dev.urn_of("network-vcn"),
        dev.urn_of("network-routes"),
        dev.urn_of("network-egress-only"),
    }
    routes = dev.one("oci:Core/routeTable:RouteTable")
    assert dev.urn_of("network-igw") in routes.dependencies
    assert routes.inputs["routeRules"][0]["destination"] == "0.0.0.0/0"


def test_no_ingress_from_the_internet(dev: ProgramRun) -> None:
    security_list = dev.one("oci:Core/securityList:SecurityList")
    assert security_list.inputs.get("ingressSecurityRules", []) == []
    subnet = dev.one("oci:Core/subnet:Subnet")
    assert len(subnet.inputs["securityListIds"]) == 1  # ours, not the VCN's default list
    ingress = [r for r in dev.by_type(RULE) if r.inputs["direction"] == "INGRESS"]
    assert [(r.inputs["source"], r.inputs["tcpOptions"]) for r in ingress] == [
        ("198.51.100.0/24", {"destinationPortRange": {"max": 22, "min": 22}})
    ]
    assert ingress[0].inputs["protocol"] == "6"


def test_no_ssh_rule_when_no_cidrs_are_given() -> None:
    run = run_stack(vm_stack(**{"gpu-ci:network": {}}))
    assert [r.inputs["direction"] for r in run.by_type(RULE)] == ["EGRESS"]


def test_api_port_rules_follow_the_config() -> None:
    run = run_stack(
        vm_stack(**{"gpu-ci:network": {"apiSourceCidrs": ["192.0.2.0/24"], "apiPort": 7443}})
    )
    [api] = [r for r in run.by_type(RULE) if r.name.startswith("network-api-")]
    assert api.inputs["source"] == "192.0.2.0/24"
    assert api.inputs["tcpOptions"]["destinationPortRange"] == {"min": 7443, "max": 7443}


def test_instance_inputs(dev: ProgramRun) -> None:
    inputs = dev.one(INSTANCE).inputs
    assert inputs["shape"] == "VM.GPU.A10.1"
    assert inputs["compartmentId"] == COMPARTMENT
    assert inputs["sourceDetails"]["bootVolumeSizeInGbs"] == "512"
    assert inputs["createVnicDetails"]["assignPublicIp"] == "true"
    assert inputs["preserveBootVolume"] is False
    assert inputs["metadata"]["ssh_authorized_keys"] == SSH_KEY
    assert inputs["freeformTags"] == {
        "gpu-ci-owner": "test-team",
        "gpu-ci-project": "gpu-ci",
        "gpu-ci-role": "gpu-runner",
        "gpu-ci-stack": "test",
    }


def test_user_data_is_cloud_config_that_cloud_init_runs(dev: ProgramRun) -> None:
    text = base64.b64decode(dev.one(INSTANCE).inputs["metadata"]["user_data"]).decode()
    assert text.splitlines()[0] == "#cloud-config"
    body = yaml.safe_load(text)
    assert body["growpart"] == {"mode": "auto", "devices": ["/"]}
    assert body["write_files"][0]["path"] == "/etc/gpu-ci/instance.json"


def test_image_from_filter_is_read_once(dev: ProgramRun) -> None:
    [call] = [c for c in dev.invokes if c.token == "oci:Core/getImages:getImages"]
    assert call.args == {
        "compartmentId": COMPARTMENT,
        "operatingSystem": "Canonical Ubuntu",
        "operatingSystemVersion": "24.04",
        "shape": "VM.GPU.A10.1",
        "sortBy": "TIMECREATED",
        "sortOrder": "DESC",
        "state": "AVAILABLE",
    }
    instance = dev.one(INSTANCE)
    assert instance.inputs["sourceDetails"]["sourceId"].startswith("ocid1.image.oc1.us-ashburn-1.")
    assert instance.options["ignoreChanges"] == [
        "availabilityDomain",
        "metadata",
        "sourceDetails.sourceId",
    ]
    assert instance.options["customTimeouts"] == {"create": "30m", "delete": "30m"}


def test_pinned_image_needs_no_lookup_and_is_not_ignored() -> None:
    image = "ocid1.image.oc1.us-ashburn-1.aaaaaaaapinnedgpuimage"
    run = run_stack(vm_stack(**{"gpu-ci:vm": {"image": {"id": image}}}))
    assert not [c for c in run.invokes if c.token == "oci:Core/getImages:getImages"]
    instance = run.one(INSTANCE)
    assert instance.inputs["sourceDetails"]["sourceId"] == image
    assert instance.options["ignoreChanges"] == ["availabilityDomain", "metadata"]


def test_single_ad_by_index_needs_no_capacity_report(dev: ProgramRun) -> None:
    assert dev.by_type(REPORT) == []
    assert dev.one(INSTANCE).inputs["availabilityDomain"] == "Fake:ASHBURN-AD-1"


def test_ad_by_name_needs_no_lookup() -> None:
    run = run_stack(vm_stack(**{"gpu-ci:vm": {"availabilityDomains": ["Uocm:PHX-AD-2"]}}))
    assert run.one(INSTANCE).inputs["availabilityDomain"] == "Uocm:PHX-AD-2"
    assert not run.invokes or all("AvailabilityDomains" not in c.token for c in run.invokes)


def test_fallback_ads_are_probed_in_the_tenancy_and_unknown_until_deploy() -> None:
    values = vm_stack(**{"gpu-ci:tenancyId": TENANCY, "gpu-ci:vm": {"availabilityDomains": [1, 0]}})
    run = run_stack(values)
    reports = sorted(run.by_type(REPORT), key=lambda r: r.name)
    assert [(r.inputs["availabilityDomain"], r.inputs["compartmentId"]) for r in reports] == [
        ("Fake:ASHBURN-AD-2", TENANCY),
        ("Fake:ASHBURN-AD-1", TENANCY),
    ]
    assert reports[0].inputs["shapeAvailabilities"] == [{"instanceShape": "VM.GPU.A10.1"}]
    assert run.one(INSTANCE).inputs["availabilityDomain"] == "[unknown]"
    deployed = run_stack(values, preview=False)
    assert deployed.one(INSTANCE).inputs["availabilityDomain"] == "Fake:ASHBURN-AD-2"


def test_ad_index_out_of_range_fails_naming_the_key() -> None:
    import pulumi

    with pytest.raises(pulumi.RunError, match=r"gpu-ci:vm.availabilityDomains: index 5 is out of"):
        run_stack(vm_stack(**{"gpu-ci:vm": {"availabilityDomains": [5]}}))


def test_count_makes_one_component_per_vm() -> None:
    run = run_stack(vm_stack(**{"gpu-ci:vm": {"count": 3, "shape": "VM.GPU.A10.2"}}))
    assert sorted(r.name for r in run.by_type("gpu-ci:capacity:OciGpuInstance")) == [
        "gpu-vm-0",
        "gpu-vm-1",
        "gpu-vm-2",
    ]
    assert {r.inputs["shape"] for r in run.by_type(INSTANCE)} == {"VM.GPU.A10.2"}
    names = sorted(r.inputs["displayName"] for r in run.by_type(INSTANCE))
    assert names == ["gpu-ci-test-gpu-0", "gpu-ci-test-gpu-1", "gpu-ci-test-gpu-2"]


def test_existing_subnet_is_reused() -> None:
    subnet = "ocid1.subnet.oc1.iad.aaaaaaaaexistingsubnet"
    run = run_stack(vm_stack(**{"gpu-ci:network": {"existingSubnetId": subnet}}))
    assert not run.by_type("oci:Core/vcn:Vcn")
    assert not run.by_type("oci:Core/subnet:Subnet")
    [lookup] = [c for c in run.invokes if c.token == "oci:Core/getSubnet:getSubnet"]
    assert lookup.args == {"subnetId": subnet}
    nsg = run.one("oci:Core/networkSecurityGroup:NetworkSecurityGroup")
    assert nsg.inputs["vcnId"].startswith("ocid1.vcn.oc1.")
    assert run.one(INSTANCE).inputs["createVnicDetails"]["subnetId"] == subnet


def test_an_empty_config_is_refused_before_anything_registers() -> None:
    """No gpu-ci key at all (a lost config) plans no "nothing" that would delete all."""
    import pulumi

    with pytest.raises(pulumi.RunError, match=r"  - gpu-ci: no gpu-ci:\* key is set, so this"):
        run_stack({})


def test_components_register_their_outputs() -> None:
    run = run_stack(vm_stack(), preview=False)
    network = run.one("gpu-ci:network:OciNetwork")
    assert set(network.outputs) == {"vcnId", "subnetId", "nsgId"}
    vm = run.one("gpu-ci:capacity:OciGpuInstance")
    assert vm.outputs["publicIp"].startswith("203.0.113.")


def test_capacity_export_is_the_typed_contract() -> None:
    run = run_stack(vm_stack(**{"gpu-ci:vm": {"count": 2}}), preview=False)
    capacity = run.exports["capacity"]
    assert capacity["contractVersion"] == 1
    assert capacity["kind"] == "vm"
    assert capacity["shape"] == "VM.GPU.A10.1"
    assert len(capacity["instanceIds"]) == 2
    assert all(i.startswith("ocid1.instance.oc1.") for i in capacity["instanceIds"])
    assert capacity["subnetId"] == run.one("gpu-ci:network:OciNetwork").outputs["subnetId"]


def test_preview_exports_are_unknown_until_deploy(dev: ProgramRun) -> None:
    assert dev.exports["capacity"] == "[unknown]"
    assert set(dev.exports) == {"capacity", "cost"}  # the estimate is known from config


def test_config_error_registers_nothing() -> None:
    import pulumi

    with pytest.raises(pulumi.RunError, match=r"gpu-ci:vm.shape: unknown GPU shape"):
        run_stack(vm_stack(**{"gpu-ci:vm": {"shape": "VM.GPU.A1O.1"}}))
    # The failing run's monitor is gone with it; a fresh run after it is unaffected.
    run = run_stack({"gpu-ci:host": {"target": "local"}})
    assert run.registrations and not run.by_type("gpu-ci:capacity:OciGpuInstance")
