"""Each package component as a Python program constructs it, on the smallest inputs that
register something: its outputs as the engine records them, its place in the graph, the
options it is given, and refused inputs at the component's own input names. The
whole-stack comparisons through the provider are test_construct.py's."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pulumi
import pytest

from gpu_ci_package.arc import ArcRunnerScaleSets
from gpu_ci_package.build import InputsError
from gpu_ci_package.cluster import GpuCluster
from gpu_ci_package.host import GpuRunnerHost, capacity_of
from gpu_ci_package.platform import RecipePlatform
from stacks.offline.engine.mocks import run_program
from stacks.offline.engine.records import ProgramRun, Registration
from stacks.offline.engine.values import Secret
from tests.components.arc.arc_helpers import KUBECONFIG, PEM, RUNNER_IMAGE
from tests.gpu_ci_package.package_helpers import RUNNER
from tests.stacks.stack_helpers import COMPARTMENT, SSH_KEY, TENANCY

HOST = "gpu-ci:index:GpuRunnerHost"
CLUSTER = "gpu-ci:index:GpuCluster"
ARC = "gpu-ci:index:ArcRunnerScaleSets"
PLATFORM = "gpu-ci:index:RecipePlatform"
STACK = "urn:pulumi:test::gpu-ci::pulumi:pulumi:Stack::gpu-ci-test"
LOCAL: Any = {"target": "local", "gpus": 1}
SCALE_SET = {
    "name": "gpu-a10",
    "githubConfigUrl": "https://github.com/kubeflow",
    "maxRunners": 4,
    "runnerImage": RUNNER_IMAGE,
    "runtimeClassName": "nvidia",
}


def run(build: Callable[[], Any]) -> ProgramRun:
    return run_program(build, project="gpu-ci", stack="test", config={})


def component(ran: ProgramRun, token: str) -> Registration:
    (found,) = [r for r in ran.registrations if r.type == token]
    return found


def refused(build: Callable[[], Any]) -> list[tuple[str, str]]:
    with pytest.raises(InputsError) as err:
        run(build)
    return [(key, message.split(" [given")[0]) for key, message in err.value.problems]


def children_of(ran: ProgramRun, urn: str) -> list[Registration]:
    return [r for r in ran.registrations if r.parent == urn]


def test_capacity_comes_with_vms_only_for_target_oci_vm() -> None:
    assert capacity_of({"target": "oci-vm"}) == "vm"
    assert capacity_of({"target": "ssh"}) == "none"
    assert capacity_of({"target": "local"}) == "none"
    assert capacity_of(None) == "none"
    assert capacity_of("oci-vm") == "none"


def test_a_local_host_registers_its_steps_under_it_with_the_options_given() -> None:
    opts = pulumi.ResourceOptions(protect=True)
    ran = run(lambda: GpuRunnerHost("gpu", {"host": {"target": "local"}}, opts))
    host = component(ran, HOST)
    assert (host.name, host.parent, host.custom) == ("gpu", STACK, False)
    assert host.options["protect"] is True
    # the program's host layer, under the component: no VMs, no runner
    assert [r.type for r in children_of(ran, host.urn)] == ["gpu-ci:host:GpuHost"]
    assert not [r for r in ran.registrations if "oci:" in r.type]
    # Outputs with no value (capacity, cost) are left out of the recorded outputs.
    assert host.outputs["runnerNames"] == []
    assert set(host.outputs) == {"host", "runnerNames"}


def test_an_ssh_hosts_runner_is_named_as_the_program_names_it() -> None:
    def build() -> None:
        host: Any = {"target": "ssh", "address": "203.0.113.10", "user": "ubuntu"}
        runner: Any = pulumi.Output.secret(RUNNER)  # as a Python program passes the App key
        GpuRunnerHost("lab", {"host": host, "runner": runner})

    ran = run(build)
    assert component(ran, HOST).outputs["runnerNames"] == ["gpu-ci-test-host"]
    host = component(ran, HOST).urn  # the host and its runner, each under the component
    assert ran.one("gpu-ci:host:GithubRunner", "host-runner").parent == host
    assert ran.one("gpu-ci:host:GpuHost", "host").parent == host


def test_a_typo_names_the_component_and_its_inputs() -> None:
    with pytest.raises(InputsError) as err:
        run(lambda: GpuRunnerHost("gpu", {"hots": {"target": "local"}}))  # type: ignore[typeddict-unknown-key,typeddict-item]
    assert str(err.value).splitlines()[:2] == [
        f"{HOST} 'gpu': invalid inputs (1 problem):",
        f"  - hots: is not an input of {HOST}; did you mean 'host'? it takes host, runner, "
        "vm, network, compartmentId, tenancyId, owner",
    ]


def test_vms_come_with_a_host_of_target_oci_vm_and_give_their_capacity_and_cost() -> None:
    inputs: Any = {
        "compartmentId": COMPARTMENT,
        "tenancyId": TENANCY,
        "owner": "kubeflow-trainer-ci",
        "network": {"sshSourceCidrs": ["198.51.100.0/24"]},
        "vm": {"shape": "VM.GPU.A10.1", "sshAuthorizedKeys": [SSH_KEY]},
        "host": {"target": "oci-vm"},
    }
    ran = run(lambda: GpuRunnerHost("gpu", inputs))
    host = component(ran, HOST)
    assert set(host.outputs) == {"host", "runnerNames", "capacity", "cost"}
    # the VMs' export is known once they exist: unknown at preview, but given
    assert host.outputs["cost"]["estimates"][0]["shape"] == "VM.GPU.A10.1"
    assert ran.one("gpu-ci:capacity:VmCapacity", "capacity").parent == host.urn


def test_a_host_of_target_oci_vm_needs_what_its_vms_need() -> None:
    problems = refused(lambda: GpuRunnerHost("gpu", {"host": {"target": "oci-vm"}}))
    assert [key for key, _ in problems] == ["compartmentId", "owner"]


def test_a_cluster_gives_its_contract_and_its_kubeconfig_as_a_secret() -> None:
    ran = run(lambda: GpuCluster("kind", {"host": LOCAL, "cluster": {}}))
    cluster = component(ran, CLUSTER)
    assert (cluster.name, cluster.parent) == ("kind", STACK)
    outputs = cluster.outputs
    assert set(outputs) == {
        "kubeconfig",
        "clusterName",
        "nodeImage",
        "kubernetesVersion",
        "gpuCount",
        "cluster",
        "host",
    }
    assert isinstance(outputs["kubeconfig"], Secret)
    contract = outputs["cluster"]
    assert outputs["clusterName"] == contract["name"] == "gpu-ci"
    assert outputs["gpuCount"] == contract["gpuCount"] == 1
    assert outputs["nodeImage"] == contract["nodeImage"]
    assert outputs["nodeImage"].startswith("kindest/node:v")
    assert outputs["kubernetesVersion"] == contract["kubernetesVersion"]
    assert outputs["nodeImage"].startswith(f"kindest/node:{contract['kubernetesVersion']}@")
    types = {r.type for r in children_of(ran, cluster.urn)}  # the layers, under it
    assert types == {"gpu-ci:host:GpuHost", "gpu-ci:cluster:NvkindCluster"}


def test_a_cluster_with_a_platform_gives_its_export_under_the_options_given() -> None:
    opts = pulumi.ResourceOptions(protect=True)
    inputs: Any = {"host": LOCAL, "cluster": {}, "platform": {"accelerator": "a10"}}
    ran = run(lambda: GpuCluster("kind", inputs, opts))
    cluster = component(ran, CLUSTER)
    assert cluster.options["protect"] is True
    # the platform's export is known once its releases deploy: unknown at preview, but given
    assert set(cluster.outputs) >= {"platform", "cluster", "kubeconfig"}
    assert "cost" not in cluster.outputs  # no VM, no estimate


def test_a_clusters_kubeconfig_is_the_clusters_own_text_as_a_secret() -> None:
    def build() -> None:
        GpuCluster("kind", {"host": LOCAL, "cluster": {}})

    ran = run_program(
        build,
        project="gpu-ci",
        stack="test",
        config={},
        preview=False,
    )
    kubeconfig = component(ran, CLUSTER).outputs["kubeconfig"]
    assert isinstance(kubeconfig, Secret)
    assert "kind: Config" in kubeconfig.value or "contexts:" in kubeconfig.value


def test_a_cluster_on_vms_gives_their_cost_and_needs_what_they_need() -> None:
    vm: Any = {
        "compartmentId": COMPARTMENT,
        "tenancyId": TENANCY,
        "owner": "kubeflow-trainer-ci",
        "network": {"sshSourceCidrs": ["198.51.100.0/24"], "apiSourceCidrs": ["198.51.100.0/24"]},
        "vm": {"shape": "VM.GPU.A10.1", "sshAuthorizedKeys": [SSH_KEY]},
        "host": {"target": "oci-vm"},
        "cluster": {},
    }
    ran = run(lambda: GpuCluster("kind", vm))
    assert component(ran, CLUSTER).outputs["cost"]["estimates"][0]["shape"] == "VM.GPU.A10.1"
    problems = refused(lambda: GpuCluster("kind", {"host": {"target": "oci-vm"}, "cluster": {}}))
    assert {"compartmentId", "owner"} <= {key for key, _ in problems}


def test_a_clusters_refusal_names_the_component() -> None:
    with pytest.raises(InputsError) as err:
        run(lambda: GpuCluster("kind", {"host": LOCAL, "cluster": {}, "hots": 1}))  # type: ignore[typeddict-unknown-key]
    assert str(err.value).splitlines()[0] == f"{CLUSTER} 'kind': invalid inputs (1 problem):"
    with pytest.raises(InputsError) as err:
        run(lambda: GpuCluster("kind", {"host": LOCAL, "cluster": {"gpus": "some"}}))
    assert str(err.value).splitlines()[0] == f"{CLUSTER} 'kind': invalid inputs (1 problem):"


def test_a_clusters_inputs_are_refused_at_their_own_names() -> None:
    problems = refused(
        lambda: GpuCluster(
            "kind",
            {"host": {**LOCAL, "gpus": 0.5}, "cluster": {"gpus": "some"}, "metrics": 3},  # type: ignore[typeddict-item]
        )
    )
    assert sorted(key for key, _ in problems) == ["cluster.gpus", "host.gpus", "metrics"]


def test_a_cluster_without_a_platform_may_turn_its_metrics_off() -> None:
    ran = run(lambda: GpuCluster("kind", {"host": LOCAL, "cluster": {}, "metrics": False}))
    assert component(ran, CLUSTER).outputs["clusterName"] == "gpu-ci"
    assert "gpu-ci:observability:Monitoring" not in {r.type for r in ran.registrations}


def test_a_platforms_inputs_are_refused_at_their_own_names() -> None:
    problems = refused(
        lambda: RecipePlatform(
            "apps",
            {
                "clusterStack": "org/gpu-ci/gpu-dev",
                "accelerator": "a10",
                "intent": "zz",
                "metrics": 3,  # type: ignore[typeddict-item]
            },
        )
    )
    assert dict(problems).keys() == {"intent", "metrics"}
    assert dict(problems)["intent"].startswith("unknown value; valid values")
    assert dict(problems)["metrics"] == "Input should be a valid boolean, unable to interpret input"


def test_a_platform_without_inputs_is_no_platform_and_refused() -> None:
    """No input at all is no `gpu-ci:platform` key (not an empty one): the program's
    message for a stack that would create nothing, at the component's inputs."""
    problems = refused(lambda: RecipePlatform("apps", {}))  # type: ignore[typeddict-item]
    assert [key for key, _ in problems] == ["inputs"]
    assert problems[0][1].startswith("no gpu-ci:* key is set, so this stack would create nothing")


ARC_INPUTS: dict[str, Any] = {
    "cluster": {"kubeconfig": KUBECONFIG},
    "githubApp": {"appId": 1234567, "installationId": 87654321, "privateKey": PEM},
    "scaleSets": [SCALE_SET],
}


def test_scale_sets_are_gpu_pods_and_their_names_are_the_output() -> None:
    def build() -> None:
        secret = pulumi.Output.secret(ARC_INPUTS["githubApp"])
        ArcRunnerScaleSets("arc", {**ARC_INPUTS, "githubApp": secret, "metrics": False})  # type: ignore[typeddict-item]

    ran = run(build)
    arc = component(ran, ARC)
    assert (arc.name, arc.parent) == ("arc", STACK)
    assert arc.outputs["scaleSets"] == ["gpu-a10"]
    assert arc.outputs["runnersNamespace"] == "arc-runners"
    assert arc.outputs["controller"] == arc.outputs["arc"]["controller"]
    assert arc.outputs["controller"]["serviceAccount"] == "arc-gha-rs-controller"
    assert [s["kind"] for s in arc.outputs["arc"]["scaleSets"]] == ["gpu-pod"]
    assert arc.outputs["cost"]["contractVersion"] == 1
    assert set(arc.outputs) == {"scaleSets", "controller", "runnersNamespace", "arc", "cost"}
    # metrics off: no Prometheus stack under the component
    assert not [r for r in ran.registrations if r.type == "gpu-ci:observability:Monitoring"]
    # the App key given as a secret stays one in the scale set's Secret
    (app,) = [
        r
        for r in ran.registrations
        if r.type == "kubernetes:core/v1:Secret" and "github-app" in r.name
    ]
    assert isinstance(app.inputs["stringData"], Secret)


def test_scale_set_inputs_are_refused_at_their_own_names() -> None:
    problems = refused(
        lambda: ArcRunnerScaleSets(
            "arc",
            {**ARC_INPUTS, "scaleSets": [{**SCALE_SET, "maxRunners": -1}, "x"], "metrics": 3},  # type: ignore[typeddict-item]
        )
    )
    assert [key for key, _ in problems] == [
        "cluster.kubeconfig",  # credentials given in plain text
        "githubApp.privateKey",
        "scaleSets[0].maxRunners",
        "scaleSets[1]",
        "metrics",
    ]


def test_scale_sets_register_under_the_component_with_its_options_and_metrics_by_default() -> None:
    def build() -> None:
        secret: Any = pulumi.Output.secret(ARC_INPUTS["githubApp"])
        opts = pulumi.ResourceOptions(protect=True)
        ArcRunnerScaleSets("arc", {**ARC_INPUTS, "githubApp": secret}, opts)  # type: ignore[typeddict-item]

    ran = run(build)
    arc = component(ran, ARC)
    assert arc.options["protect"] is True
    assert {r.parent for r in ran.registrations if r.type.startswith("gpu-ci:arc:")} == {arc.urn}
    # metrics unset: the program's default for ARC, its job metrics and dashboard
    assert ran.one("gpu-ci:observability:Monitoring", "monitoring").parent == arc.urn


def test_a_scale_sets_refusal_names_the_component() -> None:
    with pytest.raises(InputsError) as err:
        run(lambda: ArcRunnerScaleSets("arc", {**ARC_INPUTS, "metrics": 3}))  # type: ignore[typeddict-item]
    first = str(err.value).splitlines()[0]
    assert first.startswith(f"{ARC} 'arc': invalid inputs (")
    with pytest.raises(InputsError) as err:
        run(lambda: ArcRunnerScaleSets("arc", {**ARC_INPUTS, "scaleSet": []}))  # type: ignore[typeddict-item]
    assert str(err.value).splitlines()[:2] == [
        f"{ARC} 'arc': invalid inputs (1 problem):",
        f"  - scaleSet: is not an input of {ARC}; did you mean 'scaleSets'? it takes cluster, "
        "scaleSets, githubApp, existingSecret, controller, runnersNamespace, "
        "failedRunnerCleanup, metrics",
    ]
