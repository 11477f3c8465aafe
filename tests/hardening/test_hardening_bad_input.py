"""Bad input fails early and clearly: one table over stack config, recipes and stack files.

Every case runs the real program (or the offline plan of a stack file) under the recording
mocks and must fail with one message that names the key or file, carries no traceback, and
leaves the engine with no resource registered: nothing would have been created.

The rules themselves are unit-tested next to their code (tests/stacks, tests/recipes); this
table proves that each kind of mistake stops the whole program before the first resource.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pulumi
import pytest
import yaml

from stacks.errors import GpuCiError
from stacks.fakes import FakeCloud, StackExports
from stacks.mocks import Registration, run_program
from stacks.plan import REPO, plan_run
from stacks.program import main
from tests.arc.arc_helpers import arc_stack, gpu_pod, launcher
from tests.stacks.stack_helpers import SSH_KEY, flat, vm_stack

PEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAhardening\n-----END RSA PRIVATE KEY-----\n"
APP = {"appId": 1234567, "installationId": 7654321, "privateKey": PEM}
API_CIDR = "198.51.100.0/24"
V1 = "aicr.nvidia.com/v1alpha1"
# The project's query for a kind cluster with an A10: an overlay with these criteria applies.
KIND_A10 = {"service": "kind", "accelerator": "a10", "intent": "training", "platform": "kubeflow"}


def local(**host: Any) -> dict[str, Any]:
    """No cloud capacity; the machine running `pulumi up` is the host."""
    return {"gpu-ci:capacity": "none", "gpu-ci:host": {"target": "local", **host}}


def ssh(**host: Any) -> dict[str, Any]:
    return local(**{"target": "ssh", "address": "gpu1.example.org", "user": "ci", **host})


def vm(**overrides: Any) -> dict[str, Any]:
    """A VM stack with its host bootstrapped, as Pulumi.dev.yaml."""
    return vm_stack(**{"gpu-ci:host": {"target": "oci-vm"}, **overrides})


def network(**keys: Any) -> dict[str, Any]:
    return {"gpu-ci:network": {"sshSourceCidrs": [API_CIDR], **keys}}


def vm_with(**values: Any) -> dict[str, Any]:
    """A VM stack whose `gpu-ci:vm` has these keys."""
    return vm(**{"gpu-ci:vm": {"sshAuthorizedKeys": [SSH_KEY], **values}})


def runner(**keys: Any) -> dict[str, Any]:
    return vm(**{"gpu-ci:runner": {"url": "https://github.com/kubeflow", "githubApp": APP, **keys}})


def platform(**keys: Any) -> dict[str, Any]:
    """A local host with an nvkind cluster and the platform on it."""
    return {
        **local(),
        "gpu-ci:cluster": {"name": "gpu-ci"},
        "gpu-ci:platform": {"accelerator": "a10", **keys},
    }


def overlay(name: str, **spec: Any) -> dict[str, Any]:
    return {"kind": "RecipeMetadata", "apiVersion": V1, "metadata": {"name": name}, "spec": spec}


def registry(*names: str) -> dict[str, Any]:
    return {
        "apiVersion": V1,
        "kind": "ComponentRegistry",
        "components": [
            {
                "name": n,
                "helm": {
                    "defaultRepository": f"https://charts.example/{n}",
                    "defaultChart": f"example/{n}",
                    "defaultVersion": "1.0.0",
                    "defaultNamespace": n,
                },
            }
            for n in names
        ],
    }


@dataclass(frozen=True)
class Case:
    """One broken input and the one message fragment that names what to fix.

    Exactly one of `values` (a stack config run through the program), `catalog` (files of
    a catalog layered under the project's through gpu-ci:platform.catalogs) or `stacks`
    (stack files of a project planned offline as `pulumi preview -s broken` would) is set.
    """

    id: str
    fragment: str
    values: dict[str, Any] | None = None
    secret: tuple[str, ...] = ()
    catalog: dict[str, Any] | None = None
    stacks: dict[str, str] = field(default_factory=dict)


CASES = [
    # -- wrong types ---------------------------------------------------------------------
    Case("type-count", "gpu-ci:vm.count: Input should be a valid integer", vm_with(count="two")),
    Case(
        "type-bool",
        "gpu-ci:vm.assignPublicIp: Input should be a valid boolean",
        vm_with(assignPublicIp="perhaps"),
    ),
    Case(
        "type-list",
        "gpu-ci:network.sshSourceCidrs: Input should be a valid list",
        vm(**{"gpu-ci:network": {"sshSourceCidrs": API_CIDR}}),
    ),
    Case(
        "type-object",
        "gpu-ci:host: Input should be a valid dictionary",
        {"gpu-ci:capacity": "none", "gpu-ci:host": "local"},
    ),
    Case(
        "type-app-id",
        "gpu-ci:runner.githubApp.appId: Input should be a valid integer",
        runner(githubApp={**APP, "appId": "my-app"}),
        secret=("gpu-ci:runner",),
    ),
    Case("type-port", "gpu-ci:host.port: Input should be a valid integer", ssh(port="ssh")),
    # -- unknown keys and near misses -----------------------------------------------------
    Case(
        "unknown-top-key",
        "gpu-ci:clusters: unknown key (did you mean 'cluster'?)",
        {**platform(), "gpu-ci:clusters": {}},
    ),
    Case(
        "unknown-nested-key",
        "gpu-ci:host.versions.toolkits: unknown key (did you mean 'toolkit'?)",
        local(versions={"toolkits": "1.17.8-1"}),
    ),
    Case(
        "unknown-platform-key",
        "gpu-ci:platform.intnet: unknown key (did you mean 'intent'?)",
        platform(intnet="training"),
    ),
    Case(
        "unknown-network-key",
        "gpu-ci:network.sshSourceCidr: unknown key (did you mean 'sshSourceCidrs'?)",
        vm(**{"gpu-ci:network": {"sshSourceCidr": [API_CIDR]}}),
    ),
    Case(
        "unknown-runner-key",
        "gpu-ci:runner.githubapp: unknown key (did you mean 'githubApp'?)",
        vm(**{"gpu-ci:runner": {"url": "https://github.com/kubeflow", "githubapp": APP}}),
        secret=("gpu-ci:runner",),
    ),
    Case(
        "typo-enum-arch",
        "gpu-ci:host.arch: must be one of 'amd64', 'arm64' (did you mean 'amd64'?)",
        local(arch="amd46"),
    ),
    Case(
        "typo-enum-capacity",
        "gpu-ci:capacity: must be one of 'vm',",
        {"gpu-ci:capacity": "nONE"},
    ),
    Case(
        "typo-shape",
        "gpu-ci:vm.shape: unknown GPU shape (did you mean 'VM.GPU.A10.2'?)",
        vm_with(shape="VM.GPU.A10.Z"),
    ),
    Case(
        "typo-target",
        "gpu-ci:host.target: must be one of 'oci-vm', 'ssh', 'local' (did you mean 'ssh'?)",
        local(target="shh"),
    ),
    # -- network -------------------------------------------------------------------------
    Case(
        "cidr-prefix",
        "gpu-ci:network.vcnCidr: '10.0.0.0/33' is not a CIDR block",
        vm(**network(vcnCidr="10.0.0.0/33")),
    ),
    Case(
        "cidr-octet",
        "gpu-ci:network.apiSourceCidrs[0]: '300.1.1.0/24' is not a CIDR block",
        vm(**network(apiSourceCidrs=["300.1.1.0/24"])),
    ),
    Case(
        "cidr-family",
        "gpu-ci:network.subnetCidr: fd00::/64 is not inside vcnCidr 10.0.0.0/16",
        vm(**network(subnetCidr="fd00::/64")),
    ),
    Case(
        "ssh-world",
        "gpu-ci:network.sshSourceCidrs: 0.0.0.0/0 opens the port to the whole internet",
        vm(**{"gpu-ci:network": {"sshSourceCidrs": [API_CIDR, "0.0.0.0/0"]}}),
    ),
    Case(
        "api-world",
        "gpu-ci:network.apiSourceCidrs: ::/0 opens the port to the whole internet",
        vm(**network(apiSourceCidrs=["::/0"]), **{"gpu-ci:cluster": {"name": "gpu-ci"}}),
    ),
    Case(
        "api-port",
        "gpu-ci:network.apiPort: Input should be less than or equal to 65535",
        vm(**network(apiPort=70000)),
    ),
    # -- capacity ------------------------------------------------------------------------
    Case(
        "shape-unknown",
        "gpu-ci:vm.shape: unknown GPU shape; known shapes:",
        vm_with(shape="VM.Standard.E5.Flex"),
    ),
    Case(
        "owner-missing",
        "gpu-ci:owner: required when gpu-ci:capacity is 'vm'",
        vm(**{"gpu-ci:owner": None}),
    ),
    Case(
        "owner-pattern",
        "gpu-ci:owner: String should match pattern",
        vm(**{"gpu-ci:owner": "the gpu team"}),
    ),
    Case(
        "compartment-ocid",
        "gpu-ci:compartmentId: 'my-compartment' is not an OCI OCID",
        vm(**{"gpu-ci:compartmentId": "my-compartment"}),
    ),
    Case(
        "secret-not-credential",
        "gpu-ci:network: is stored as a secret, but it holds no credential",
        vm(**network()),
        secret=("gpu-ci:network",),
    ),
    # -- host versions: the compatibility model ------------------------------------------
    Case(
        "toolkit-118-dropin",
        "gpu-ci:host.versions: known-bad combination: [toolkit-1.18-containerd-dropin-path]",
        local(versions={"toolkit": "1.18.0-1"}),
    ),
    Case(
        "cdi-old-nvkind",
        "gpu-ci:host.versions: known-bad combination: [nvkind-61-jit-cdi-umount]",
        local(
            cdi=True,
            versions={
                "toolkit": "1.19.1-1",
                "nvkind": {"commit": "5bb2ef1", "commitDate": "2026-02-10"},
            },
        ),
    ),
    Case(
        "driver-branch",
        "gpu-ci:host.versions.driverBranch: String should match pattern",
        local(versions={"driverBranch": "latest"}),
    ),
    Case(
        "tool-digest",
        "gpu-ci:host.versions.kubectl.sha256: String should match pattern",
        local(versions={"kubectl": {"version": "1.35.0", "sha256": "abc123"}}),
    ),
    Case(
        "nvkind-binary-half",
        "gpu-ci:host.versions.nvkind: binaryUrl and binarySha256 go together",
        local(versions={"nvkind": {"binaryUrl": "https://example.org/nvkind"}}),
    ),
    Case(
        "ssh-address",
        "gpu-ci:host.address: 'gpu 1' is not a host name or IP address",
        ssh(address="gpu 1"),
    ),
    # -- runner --------------------------------------------------------------------------
    Case(
        "runner-url",
        "gpu-ci:runner.url: not a GitHub URL",
        runner(url="https://gitlab.com/kubeflow"),
        secret=("gpu-ci:runner",),
    ),
    Case(
        "runner-labels-twice",
        "gpu-ci:runner.labels: ['gpu', 'gpu'] lists a label twice",
        runner(labels=["gpu", "gpu"]),
        secret=("gpu-ci:runner",),
    ),
    Case(
        "runner-app-id",
        "gpu-ci:runner.githubApp.installationId: Input should be greater than or equal to 1",
        runner(githubApp={**APP, "installationId": 0}),
        secret=("gpu-ci:runner",),
    ),
    # -- cluster and platform --------------------------------------------------------------
    Case(
        "cluster-name",
        "gpu-ci:cluster.name: name 'GPU_CI' is not a kind cluster name",
        {**local(), "gpu-ci:cluster": {"name": "GPU_CI"}},
    ),
    Case(
        "criteria-intent",
        "gpu-ci:platform: --intent inference: no overlay in the catalog supports it",
        platform(intent="inference"),
    ),
    Case(
        "criteria-service",
        "gpu-ci:platform: --service gke: no overlay in the catalog supports it",
        platform(service="gke"),
    ),
    Case(
        "criteria-pattern",
        "gpu-ci:platform.accelerator: String should match pattern",
        platform(accelerator="A10 GPU"),
    ),
    Case(
        "set-syntax",
        "gpu-ci:platform.set: ",
        platform(set=["gpu-operator"]),
    ),
    Case(
        "cluster-stack-syntax",
        "gpu-ci:platform.clusterStack: not a stack reference",
        {"gpu-ci:platform": {"clusterStack": "a/b", "accelerator": "a10"}},
    ),
    Case(
        "catalog-dir",
        "gpu-ci:platform: --data /nonexistent/gpu-ci-catalog: not a directory",
        platform(catalogs=["/nonexistent/gpu-ci-catalog"]),
    ),
    # -- recipe catalogs layered under the project's ---------------------------------------
    Case(
        "recipe-cycle",
        "overlays/x.yaml: spec.base: inheritance cycle x -> y -> x",
        catalog={
            "overlays/x.yaml": overlay("x", base="y"),
            "overlays/y.yaml": overlay("y", base="x"),
        },
    ),
    Case(
        "recipe-dependency-cycle",
        "gpu-ci:platform: dependency cycle among components: ping, pong",
        catalog={
            "registry.yaml": registry("ping", "pong"),
            "overlays/ping-pong.yaml": overlay(
                "ping-pong",
                base="kind-a10-training-kubeflow",
                criteria=KIND_A10,
                componentRefs=[
                    {"name": "ping", "dependencyRefs": ["pong"]},
                    {"name": "pong", "dependencyRefs": ["ping"]},
                ],
            ),
        },
    ),
    Case(
        "recipe-values-file",
        "overlays/x.yaml: spec.componentRefs[0].valuesFile: file components/gpu-operator/"
        "values-a10.yaml does not exist",
        catalog={
            "overlays/x.yaml": overlay(
                "x",
                componentRefs=[
                    {
                        "name": "gpu-operator",
                        "valuesFile": "components/gpu-operator/values-a10.yaml",
                    }
                ],
            )
        },
    ),
    Case(
        "recipe-malformed-yaml",
        "overlays/x.yaml: malformed YAML: line 3, column 1",
        catalog={"overlays/x.yaml": "kind: RecipeMetadata\nspec: {criteria: [kind\n"},
    ),
    Case(
        "recipe-criteria-key",
        "overlays/x.yaml: spec.criteria.gpu: unknown field",
        catalog={"overlays/x.yaml": overlay("x", criteria={"service": "kind", "gpu": "a10"})},
    ),
    Case(
        "recipe-unknown-component",
        "overlays/x.yaml: spec.componentRefs[0].name: component 'gpu-operater' is not in "
        "registry.yaml (did you mean 'gpu-operator'?)",
        catalog={"overlays/x.yaml": overlay("x", componentRefs=[{"name": "gpu-operater"}])},
    ),
    Case(
        "recipe-registry-key",
        "registry.yaml: components[0].helm.defaultVersions: unknown field",
        catalog={
            "registry.yaml": {
                **registry(),
                "components": [{"name": "extra", "helm": {"defaultVersions": "1.0.0"}}],
            }
        },
    ),
    # -- stack files, planned offline --------------------------------------------------------
    Case(
        "stack-file-yaml",
        "Pulumi.broken.yaml: not valid YAML",
        stacks={"broken": "config:\n  gpu-ci:capacity: [vm\n"},
    ),
    Case(
        "stack-file-namespace",
        "Pulumi.broken.yaml: config key 'capacity' needs a namespace, like gpu-ci:capacity",
        stacks={"broken": "config:\n  capacity: vm\n"},
    ),
    Case(
        "reference-without-cluster",
        "gpu-ci:platform.clusterStack: stack 'workstation' exports no `cluster`, `kubeconfig` "
        "(it exports: host)",
        stacks={
            "workstation": "<copy>",
            "broken": yaml.safe_dump(
                {
                    "config": {
                        "gpu-ci:platform": {"clusterStack": "workstation", "accelerator": "a10"}
                    }
                }
            ),
        },
    ),
    Case(
        "reference-unknown-stack",
        "no stack 'gpu-prod': Pulumi.gpu-prod.yaml does not exist",
        stacks={
            "broken": yaml.safe_dump(
                {
                    "config": {
                        "gpu-ci:platform": {
                            "clusterStack": "organization/gpu-ci/gpu-prod",
                            "accelerator": "a10",
                        }
                    }
                }
            )
        },
    ),
    # -- ARC capacity ----------------------------------------------------------------------
    Case(
        "arc-min-over-max",
        "gpu-ci:arc.scaleSets[0].maxRunners: must be at least minRunners (5)",
        arc_stack(launcher(minRunners=5, maxRunners=2)),
        secret=("gpu-ci:arc",),
    ),
    Case(
        "arc-name-not-a-label",
        "gpu-ci:arc.scaleSets[1].name: not a valid runner label for a scale set",
        arc_stack(gpu_pod(), gpu_pod(name="GPU pods!")),
        secret=("gpu-ci:arc",),
    ),
    Case(
        "arc-launcher-without-shapes",
        "gpu-ci:arc.scaleSets[0].shapes: a vm-launcher needs at least one VM shape",
        arc_stack(launcher(shapes=[])),
        secret=("gpu-ci:arc",),
    ),
]
"""ARC cases (min > max runners, bad scale-set names) join once `gpu-ci:arc` exists."""

NAMES_A_KEY_OR_FILE = re.compile(r"gpu-ci:[A-Za-z]|[\w./-]+\.ya?ml|--data ")


def _fail(case: Case, tmp_path: Path) -> tuple[BaseException, list[Registration]]:
    """Run the case; return what it raised and what registered before it did."""
    registered: list[Registration] = []
    with pytest.raises((GpuCiError, pulumi.RunError)) as failure:
        if case.stacks:
            shutil.copy(REPO / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
            for name, text in case.stacks.items():
                source = (REPO / f"Pulumi.{name}.yaml").read_text() if text == "<copy>" else text
                (tmp_path / f"Pulumi.{name}.yaml").write_text(source)
            plan_run("broken", tmp_path, registrations=registered)
        else:
            values = case.values
            if case.catalog is not None:
                for rel, doc in case.catalog.items():
                    path = tmp_path / "catalog" / rel
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_text(doc if isinstance(doc, str) else yaml.safe_dump(doc))
                values = platform(catalogs=[str(tmp_path / "catalog")])
            assert values is not None
            run_program(
                main,
                project="gpu-ci",
                stack="broken",
                config=flat(values),
                secret_keys=set(case.secret),
                registrations=registered,
            )
    return failure.value, registered


def test_the_matrix_is_large_and_each_case_names_a_key_or_file() -> None:
    assert len(CASES) >= 40
    assert len({c.id for c in CASES}) == len(CASES)
    for case in CASES:
        assert NAMES_A_KEY_OR_FILE.search(case.fragment), case.id
        assert [case.values is not None, case.catalog is not None, bool(case.stacks)].count(
            True
        ) == 1, case.id


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_fails_clearly_before_anything_registers(case: Case, tmp_path: Path) -> None:
    error, registered = _fail(case, tmp_path)
    message = str(error)
    assert message.count(case.fragment) == 1, message
    assert "Traceback" not in message and 'File "' not in message, message
    assert error.__cause__ is None or isinstance(error.__cause__, GpuCiError)
    assert registered == [], [r.urn for r in registered]
    if "[given:" in message:
        assert "PRIVATE KEY" not in message and "hardening" not in message


def test_a_missing_export_fails_with_the_key_when_the_reference_is_read() -> None:
    """`pulumi up` reads the reference itself: a missing export is named, not a KeyError."""
    values = {"gpu-ci:platform": {"clusterStack": "gpu-dev", "accelerator": "a10"}}
    cloud = FakeCloud(flat(values), {"gpu-dev": StackExports({"cluster": {}})})
    with pytest.raises(pulumi.RunError) as failure:
        run_program(main, project="gpu-ci", stack="apps", config=flat(values), cloud=cloud)
    assert str(failure.value) == (
        "gpu-ci:platform.clusterStack: stack 'gpu-dev' exports no `kubeconfig`; point "
        "clusterStack at a stack that sets gpu-ci:cluster, deployed first"
    )


def test_a_recipe_error_in_a_vm_stack_registers_nothing(tmp_path: Path) -> None:
    values = vm(
        **network(apiSourceCidrs=[API_CIDR]),
        **{"gpu-ci:cluster": {"name": "gpu-ci"}, "gpu-ci:platform": {"intent": "inference"}},
    )
    registered: list[Registration] = []
    with pytest.raises(pulumi.RunError, match=r"--intent inference"):
        run_program(
            main, project="gpu-ci", stack="vm", config=flat(values), registrations=registered
        )
    assert registered == []
