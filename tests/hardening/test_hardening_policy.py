"""The policy pack: every rule passes on every example stack and fires on a mutated resource.

The rules run over the resources the offline plan records (what `pulumi preview
--policy-pack policy` would hand them: type, name, inputs with secrets opened). Each
mutation changes one recorded resource of an example stack the way a regression would.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from pulumi_policy import (
    PolicyCustomTimeouts,
    PolicyResource,
    PolicyResourceOptions,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    StackValidationArgs,
    StackValidationPolicy,
)

from policy import __main__ as pack
from policy.rule import Resource, Rule, StackRule
from policy.rules import RULES
from stacks.offline.engine.records import ProgramRun
from stacks.offline.engine.values import reveal
from stacks.offline.plan import REPO, plan_run
from tests.stacks.stack_helpers import run_stack, vm_stack

STACKS = sorted(p.name[len("Pulumi.") : -len(".yaml")] for p in REPO.glob("Pulumi.*.yaml"))
RULE = {rule.name: rule for rule in RULES}
NSG_RULE = "oci:Core/networkSecurityGroupSecurityRule:NetworkSecurityGroupSecurityRule"
SECURITY_LIST = "oci:Core/securityList:SecurityList"
RELEASE = "kubernetes:helm.sh/v3:Release"
JOB = "kubernetes:batch/v1:Job"
REMOTE = "command:remote:Command"
INSTANCE = "oci:Core/instance:Instance"
_runs: dict[str, ProgramRun] = {}


def planned(stack: str) -> ProgramRun:
    if stack not in _runs:
        _runs[stack] = plan_run(stack)
    return _runs[stack]


def resources(run: ProgramRun) -> list[Resource]:
    return [Resource(r.type, r.name, reveal(r.inputs), r.urn) for r in run.registrations]


def recorded(type_: str, name: str, stack: str = "dev") -> Resource:
    reg = planned(stack).one(type_, name)
    return Resource(reg.type, reg.name, copy.deepcopy(reveal(reg.inputs)), reg.urn)


def check(
    rule: Rule | StackRule, stack: list[Resource], config: dict[str, Any] | None = None
) -> list[str]:
    """What `rule` reports on these resources: a resource rule on each, a stack rule on all
    of them at once (as `pulumi preview --policy-pack policy` runs each kind)."""
    if isinstance(rule, StackRule):
        return rule(stack, config)
    return [m for r in stack for m in rule(r, config)]


def job_container(resource: Resource) -> dict[str, Any]:
    container: dict[str, Any] = resource.props["spec"]["template"]["spec"]["containers"][0]
    return container


def test_the_pack_has_the_six_mandatory_rules() -> None:
    assert set(RULE) == {
        "no-world-open-ingress",
        "helm-chart-versions-pinned",
        "images-pinned-by-digest",
        "runners-ephemeral",
        "gpu-instances-tagged",
        "no-plaintext-secrets-in-pod-env",
    }


@pytest.mark.parametrize("stack", STACKS)
def test_every_rule_passes_on_every_example_stack(stack: str) -> None:
    violations = [m for rule in RULES for m in check(rule, resources(planned(stack)))]
    assert violations == []


def test_the_rules_see_what_they_guard_in_the_examples() -> None:
    """Each rule has resources of its kind to pass in the examples (no vacuous pass)."""
    dev = planned("dev")
    assert dev.by_type(NSG_RULE) and dev.by_type(SECURITY_LIST) and dev.by_type(RELEASE)
    assert dev.by_type(JOB) and dev.by_type(INSTANCE)
    assert (
        "readonly EPHEMERAL=true" in dev.one(REMOTE, "host-0-runner-github-runner").inputs["stdin"]
    )


def _world_ssh(r: Resource) -> Resource:
    r.props["source"] = "0.0.0.0/0"  # type: ignore[index]
    return r


def _world_list(r: Resource) -> Resource:
    r.props["ingressSecurityRules"] = [{"protocol": "all", "source": "::/0"}]  # type: ignore[index]
    return r


def _chart_range(r: Resource) -> Resource:
    r.props["version"] = "^26.7.0"  # type: ignore[index]
    return r


def _chart_unversioned(r: Resource) -> Resource:
    del r.props["version"]  # type: ignore[attr-defined]
    return r


def _image_tag(r: Resource) -> Resource:
    container = job_container(r)
    container["image"] = container["image"].split("@", 1)[0]
    return r


def _kubectl_latest(r: Resource) -> Resource:
    job_container(r)["image"] = "registry.k8s.io/kubectl:latest"
    return r


def _persistent_runner(r: Resource) -> Resource:
    stdin = r.props["stdin"].replace("readonly EPHEMERAL=true", "readonly EPHEMERAL=false")
    r.props["stdin"] = stdin  # type: ignore[index]
    return r


def _untagged(r: Resource) -> Resource:
    del r.props["freeformTags"]["gpu-ci-owner"]
    return r


def _token_env(r: Resource) -> Resource:
    job_container(r)["env"].append({"name": "GITHUB_TOKEN", "value": "not-a-ref"})
    return r


def _pem_env(r: Resource) -> Resource:
    pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----"
    job_container(r).setdefault("env", []).append({"name": "APP", "value": pem})
    return r


Mutation = tuple[str, str, str, Callable[[Resource], Resource], str]
MUTATIONS: list[Mutation] = [
    (
        "no-world-open-ingress",
        NSG_RULE,
        "network-ssh-198-51-100-0-24",
        _world_ssh,
        "TCP port 22 open to 0.0.0.0/0",
    ),
    (
        "no-world-open-ingress",
        SECURITY_LIST,
        "network-egress-only",
        _world_list,
        "all protocols open to ::/0",
    ),
    (
        "helm-chart-versions-pinned",
        RELEASE,
        "platform-gpu-operator",
        _chart_range,
        "version '^26.7.0' is a range",
    ),
    (
        "helm-chart-versions-pinned",
        RELEASE,
        "platform-kubeflow-trainer",
        _chart_unversioned,
        "has no version",
    ),
    (
        "images-pinned-by-digest",
        JOB,
        "platform-checks-check-nvidia-smi",
        _image_tag,
        "image 'nvidia/cuda:12.8.1-base-ubuntu24.04' is not pinned by digest",
    ),
    (
        "images-pinned-by-digest",
        JOB,
        "platform-checks-operator-health",
        _kubectl_latest,
        "image 'registry.k8s.io/kubectl:latest' is not pinned by digest",
    ),
    (
        "runners-ephemeral",
        REMOTE,
        "host-0-runner-github-runner",
        _persistent_runner,
        "registers a persistent runner",
    ),
    (
        "gpu-instances-tagged",
        INSTANCE,
        "gpu-vm-0",
        _untagged,
        "GPU shape VM.GPU.A10.1 lacks gpu-ci-owner",
    ),
    (
        "no-plaintext-secrets-in-pod-env",
        JOB,
        "platform-checks-operator-health",
        _token_env,
        "env GITHUB_TOKEN holds a credential as a plain value",
    ),
    (
        "no-plaintext-secrets-in-pod-env",
        JOB,
        "platform-checks-check-nvidia-smi",
        _pem_env,
        "env APP holds a credential as a plain value",
    ),
]


@pytest.mark.parametrize(
    ("rule", "type_", "name", "mutate", "fragment"),
    MUTATIONS,
    ids=[f"{m[0]}:{m[2]}" for m in MUTATIONS],
)
def test_each_rule_fires_on_a_mutated_resource(
    rule: str, type_: str, name: str, mutate: Callable[[Resource], Resource], fragment: str
) -> None:
    original = recorded(type_, name)
    assert check(RULE[rule], [original]) == []
    mutated = mutate(recorded(type_, name))
    [message] = check(RULE[rule], [mutated])
    assert message.startswith(f"{name} ({type_}): ")
    assert fragment in message
    others = [m for other in RULES if other.name != rule for m in check(other, [mutated])]
    assert others == []  # one mutation, one rule


def test_every_rule_has_a_mutation() -> None:
    assert {m[0] for m in MUTATIONS} == set(RULE)


def test_allowed_world_ports_and_secret_refs_pass() -> None:
    ssh = [_world_ssh(recorded(NSG_RULE, "network-ssh-198-51-100-0-24"))]
    assert check(RULE["no-world-open-ingress"], ssh, {"allowedWorldPorts": [22]}) == []
    assert check(RULE["no-world-open-ingress"], ssh, {"allowedWorldPorts": [443]}) != []
    job = recorded(JOB, "platform-checks-operator-health")
    ref = {"secretKeyRef": {"name": "github", "key": "token"}}
    job_container(job)["env"].append({"name": "GITHUB_TOKEN", "valueFrom": ref})
    job_container(job)["env"].append({"name": "OCI_KEY_FILE", "value": "/etc/oci/key.pem"})
    assert check(RULE["no-plaintext-secrets-in-pod-env"], [job]) == []


def test_a_persistent_runner_config_is_caught_end_to_end() -> None:
    """`gpu-ci:runner.ephemeral: false` in a stack renders a step the policy refuses: config
    validation lets it through only with `allowJobsToReadRunnerCredential: true`, so the
    policy is the second line for a stack that says so."""
    pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\n"
    app = {"appId": 1, "installationId": 2, "privateKey": pem}
    runner = {
        "url": "https://github.com/kubeflow",
        "githubApp": app,
        "ephemeral": False,
        "allowJobsToReadRunnerCredential": True,
    }
    values = vm_stack(**{"gpu-ci:host": {"target": "oci-vm"}, "gpu-ci:runner": runner})
    run = run_stack(values, secret_keys=["gpu-ci:runner"])
    found = check(RULE["runners-ephemeral"], resources(run))
    assert len(found) == 1 and found[0].startswith("host-0-runner-github-runner ")


def test_the_pack_wraps_each_rule_as_a_resource_or_stack_policy() -> None:
    policies = pack.policies()
    assert [p.name for p in policies] == [r.name for r in RULES]
    for policy, rule in zip(policies, RULES, strict=True):
        kind = StackValidationPolicy if isinstance(rule, StackRule) else ResourceValidationPolicy
        assert isinstance(policy, kind), rule.name
    assert [r.name for r in RULES if isinstance(r, StackRule)] == ["no-world-open-ingress"]
    options = PolicyResourceOptions(False, [], False, [], PolicyCustomTimeouts(0, 0, 0), [])
    # A stack policy: it sees every resource and reports against the one that opens.
    nsg = _world_ssh(recorded(NSG_RULE, "network-ssh-198-51-100-0-24"))
    other = recorded(SECURITY_LIST, "network-egress-only")
    stack = [
        PolicyResource(r.type, r.props, r.urn or "", r.name, options, None, None, [], {})
        for r in (other, nsg)
    ]
    reported: list[tuple[str, str | None]] = []
    ingress, images = policies[0], policies[2]
    assert isinstance(ingress, StackValidationPolicy)
    assert isinstance(images, ResourceValidationPolicy)
    ingress.validate(
        StackValidationArgs(stack, {}), lambda message, urn: reported.append((message, urn))
    )
    [(message, urn)] = reported
    assert "TCP port 22 open to 0.0.0.0/0" in message and urn == nsg.urn
    # A resource policy: one resource at a time.
    job = recorded(JOB, "platform-checks-operator-health")
    job_container(job)["image"] = "registry.k8s.io/kubectl:latest"
    args = ResourceValidationArgs(job.type, job.props, job.urn or "", job.name, options, None, {})
    found: list[str] = []
    images.validate(args, lambda message, urn: found.append(message))
    assert len(found) == 1 and "is not pinned by digest" in found[0]
