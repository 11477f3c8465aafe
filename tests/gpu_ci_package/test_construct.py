"""Each component constructed through the provider's `construct`, its inputs keyed by schema
name and sent as the engine sends them (a TypeScript, Go or YAML program's), registers what
the Python program registers for the same config: the same resources, names, inputs,
options and edges, only under the component. A refused input is the program's message."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from pulumi import Output, RunError
from pulumi.errors import InputPropertiesError
from pulumi.output import _OutputData

from gpu_ci_package.host import GpuRunnerHost
from stacks.config.loader import raw_from_flat
from stacks.offline.engine.fakes import FakeCloud
from stacks.offline.engine.mocks import run_program
from stacks.offline.engine.records import Registration
from stacks.offline.engine.values import Secret
from stacks.offline.plan import REPO, plan_run
from stacks.offline.references import reference_exports
from stacks.offline.stack_file.read import read_stack_file
from tests.components.arc.arc_helpers import KUBECONFIG, PEM, RUNNER_IMAGE
from tests.gpu_ci_package.package_helpers import (
    construct,
    program,
    registered,
    without_component,
)
from tests.stacks.stack_helpers import COMPARTMENT, SSH_KEY, TENANCY

HOST = "gpu-ci:index:GpuRunnerHost"
CLUSTER = "gpu-ci:index:GpuCluster"
PLATFORM = "gpu-ci:index:RecipePlatform"
ARC = "gpu-ci:index:ArcRunnerScaleSets"


def stack_keys(stack: str) -> tuple[dict[str, Any], dict[str, str]]:
    """A stack file's `gpu-ci:` keys, parsed as the program reads them; and its other
    keys (`oci:region`), the consumer's config the engine passes the plugin."""
    stack_file = read_stack_file(REPO, stack)
    others = {k: v for k, v in stack_file.config.items() if not k.startswith("gpu-ci:")}
    return dict(raw_from_flat(stack_file.config, stack_file.secret_keys).values), others


def vm_host(**extra: Any) -> dict[str, Any]:
    return {
        "compartmentId": COMPARTMENT,
        "tenancyId": TENANCY,
        "owner": "kubeflow-trainer-ci",
        "network": {"sshSourceCidrs": ["198.51.100.0/24"], "apiSourceCidrs": ["198.51.100.0/24"]},
        "vm": {
            "shape": "VM.GPU.A10.1",
            "availabilityDomains": [0, 1],
            "sshAuthorizedKeys": [SSH_KEY],
        },
        "host": {"target": "oci-vm"},
        **extra,
    }


RUNNER = {
    "url": "https://github.com/kubeflow",
    "group": "GPUs",
    "githubApp": {"appId": 1234567, "installationId": 87654321, "privateKey": PEM},
}


def test_a_local_host_registers_the_workstation_stack() -> None:
    keys, others = stack_keys("workstation")
    assert keys.pop("capacity") == "none"  # the component derives it from the target
    outputs: dict[str, Any] = {}
    run = construct(HOST, "host", keys, stack="workstation", outputs=outputs, config=others)
    assert without_component(run, HOST) == registered(plan_run("workstation"))
    assert outputs["runnerNames"] == ([], False)
    assert outputs["capacity"] == outputs["cost"] == (None, False)  # no VMs for `local`


def test_vms_with_a_runner_register_what_the_program_does() -> None:
    inputs = vm_host(runner=RUNNER)
    outputs: dict[str, Any] = {}
    run = construct(HOST, "host", inputs, secrets=frozenset({"runner"}), outputs=outputs)
    python = program({**inputs, "capacity": "vm"}, secret_keys={"runner"})
    assert without_component(run, HOST) == registered(python)
    assert outputs["runnerNames"] == (["gpu-ci-test-gpu-0"], False)
    assert outputs["cost"][0]["estimates"][0]["shape"] == "VM.GPU.A10.1"
    key_step = run.one("command:remote:Command", "host-0-runner-github-app-key")
    assert isinstance(key_step.inputs["stdin"], Secret)  # the App key stays a secret
    # the component is the parent of what the program registers at the stack's root
    component = run.one(HOST, "host").urn
    assert run.one("gpu-ci:capacity:VmCapacity", "capacity").parent == component
    assert run.one("gpu-ci:host:GpuHost", "host-0").parent == component


def test_a_cluster_registers_the_gpu_dev_stack_and_gives_its_kubeconfig_as_a_secret() -> None:
    keys, others = stack_keys("gpu-dev")
    assert keys.pop("capacity") == "vm"
    outputs: dict[str, Any] = {}
    run = construct(CLUSTER, "cluster", keys, stack="gpu-dev", outputs=outputs, config=others)
    assert without_component(run, CLUSTER) == registered(plan_run("gpu-dev"))
    assert outputs["kubeconfig"][1] is True
    assert outputs["clusterName"] == ("gpu-ci", False)
    assert outputs["gpuCount"] == (1, False)
    assert outputs["nodeImage"][0].startswith("kindest/node:v")


def test_a_platform_registers_the_apps_dev_stack() -> None:
    keys, others = stack_keys("apps-dev")
    platform = keys.pop("platform")
    assert keys == {}
    reference = platform["clusterStack"]
    cloud = FakeCloud(others, {reference: reference_exports("gpu-dev", plan_run("gpu-dev"))})
    outputs: dict[str, Any] = {}
    run = construct(PLATFORM, "platform", platform, stack="apps-dev", cloud=cloud, outputs=outputs)
    assert without_component(run, PLATFORM) == registered(plan_run("apps-dev"))
    # each release's status is known once it is deployed: the export is unknown at preview
    assert sorted(outputs) == ["appliedOverlays", "checks", "platform", "releases"]
    assert not any(secret for _, secret in outputs.values())


SCALE_SET = {
    "name": "gpu-a10",
    "githubConfigUrl": "https://github.com/kubeflow",
    "maxRunners": 4,
    "runnerImage": RUNNER_IMAGE,
    "runtimeClassName": "nvidia",
}
ARC_INPUTS: dict[str, Any] = {
    "cluster": {"kubeconfig": KUBECONFIG},
    "githubApp": {"appId": 1234567, "installationId": 87654321, "privateKey": PEM},
    "scaleSets": [SCALE_SET],
    "failedRunnerCleanup": {},
}


def test_arc_scale_sets_register_what_the_program_does() -> None:
    outputs: dict[str, Any] = {}
    run = construct(
        ARC,
        "arc",
        {**ARC_INPUTS, "metrics": False},
        secrets=frozenset({"cluster", "githubApp"}),
        outputs=outputs,
    )
    arc = dict(ARC_INPUTS, scaleSets=[{"kind": "gpu-pod", **ARC_INPUTS["scaleSets"][0]}])
    values = {"capacity": "arc", "arc": arc, "observability": {"enabled": False}}
    python = program(values, secret_keys={"arc"})
    assert without_component(run, ARC) == registered(python)
    assert outputs["scaleSets"] == (["gpu-a10"], False)
    assert outputs["runnersNamespace"] == ("arc-runners", False)


def _problem_lines(message: str, prefix: str = "") -> list[str]:
    return [line.replace(f"- {prefix}", "- ", 1) for line in message.splitlines()[1:-1]]


@pytest.mark.parametrize(
    ("token", "inputs", "values", "prefix"),
    [
        (HOST, {"host": {"target": "locale"}}, {"host": {"target": "locale"}}, "gpu-ci:"),
        (
            HOST,
            vm_host(runner=RUNNER),  # the App key in plain text
            {**vm_host(runner=RUNNER), "capacity": "vm"},
            "gpu-ci:",
        ),
        (
            CLUSTER,
            {"host": {"target": "local", "gpus": 1}, "cluster": {"gpus": [[0], [1]]}},
            {"host": {"target": "local", "gpus": 1}, "cluster": {"gpus": [[0], [1]]}},
            "gpu-ci:",
        ),
        (
            ARC,
            {**ARC_INPUTS, "scaleSets": [{**SCALE_SET, "containerMode": "docker"}]},
            {
                "capacity": "arc",
                "arc": {
                    **ARC_INPUTS,
                    "scaleSets": [{"kind": "gpu-pod", **SCALE_SET, "containerMode": "docker"}],
                },
            },
            "gpu-ci:arc.",
        ),
    ],
    ids=["target", "plain-credential", "gpu-layout", "scale-set"],
)
def test_a_bad_input_is_the_programs_one_message_at_the_input(
    token: str, inputs: dict[str, Any], values: dict[str, Any], prefix: str
) -> None:
    secret = {"arc"} if token == ARC else set()
    with pytest.raises(RunError) as python:
        program(values, secret_keys=secret)
    sent = frozenset({"cluster", "githubApp"}) if token == ARC else frozenset()
    with pytest.raises(InputPropertiesError) as refused:
        construct(token, "it", inputs, secrets=sent)
    message = refused.value.message
    assert message.splitlines()[0].startswith(f"{token} 'it': invalid inputs (")
    assert message.splitlines()[-1] == "Nothing was created. Fix each input and run again."
    expected = _problem_lines(str(python.value), prefix)
    assert _problem_lines(message) == expected and expected
    assert [f"  - {e['property_path']}: {e['reason']}" for e in refused.value.errors or []] == [
        line for line in expected if line.startswith("  - ")
    ]


def test_nothing_registers_before_an_input_is_refused() -> None:
    registrations: list[Registration] = []
    with pytest.raises(InputPropertiesError, match=r"host\.address: "):
        construct(HOST, "it", {"host": {"target": "ssh"}}, registrations=registrations)
    assert [r for r in registrations if r.type != "pulumi:pulumi:Stack"] == []


def test_an_input_not_known_at_preview_is_refused_by_name() -> None:
    def build() -> None:
        data: asyncio.Future[_OutputData[Any]] = asyncio.Future()
        data.set_result(_OutputData(set(), None, is_known=False, is_secret=False))
        unknown = Output._from_data(data)  # as the provider server wraps an unknown input
        GpuRunnerHost("h", {"host": {"target": "local", "dockerUser": unknown}})  # type: ignore[typeddict-item]

    with pytest.raises(RunError, match=r"^input host.dockerUser is not known yet: gpu-ci checks"):
        run_program(build, project="gpu-ci", stack="test", config={})


def test_a_python_programs_typo_is_refused_not_dropped() -> None:
    def build() -> None:
        GpuRunnerHost("h", {"hots": {"target": "local"}})  # type: ignore[typeddict-unknown-key,typeddict-item]

    with pytest.raises(RunError) as refused:
        run_program(build, project="gpu-ci", stack="test", config={})
    assert str(refused.value).splitlines()[1] == (
        "  - hots: is not an input of gpu-ci:index:GpuRunnerHost; did you mean 'host'? it "
        "takes host, runner, vm, network, compartmentId, tenancyId, owner"
    )
