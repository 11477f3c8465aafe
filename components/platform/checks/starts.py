"""The start Jobs: a check pod that never starts fails within minutes, under its own name.

A check's deadline is its worst case (up to 46 minutes for a Test), and Kubernetes ends a
Job no earlier for a pod that never runs: `podFailurePolicy` matches terminated pods only,
a pod's own `activeDeadlineSeconds` counts from the kubelet accepting it (never, for an
unschedulable pod), and a pod the API server refuses (its ServiceAccount or RuntimeClass
missing) leaves the Job with `FailedCreate` events and no pod at all. The Job "progress
deadline" that would cover this was proposed and never built (kubernetes/enhancements
`keps/sig-apps/20190305-add-progress-deadline-seconds-to-job.md`). So, before the checks
that share a pod spec, one short Job runs exactly that spec (`starts_pod`: the check pod
less what is each check's own, its command, volumes and mounts) with a command that only
proves the container started, bounded by `STARTUP_S` with `backoffLimit: 0`, and every
check of that spec waits for it (`deployment_checks.py`). A pod that cannot start then
fails `<component>-checks-<kind>-pods-start` within `STARTUP_S`, and no check Job of that
spec is created. What `pulumi up` prints then: docs/validation.md "When the pod never
starts" (pulumi-kubernetes `provider/pkg/await/job.go`, `checker/pod/check.go` at v4.32.0,
the newest tag mirrored for the pinned 4.34.2: the Job's `DeadlineExceeded` condition and
its pod's warnings, such as an image's `ImagePullBackOff`; not the scheduler's message,
which the pod checker reports at info level).

A Job, not a bare Pod: a Pod the API server refuses would fail at once, but a Pod that
failed to become ready is awaited again on the next update, while a Job with
`pulumi.com/replaceUnready` is replaced and runs again (pulumi-kubernetes
`provider/pkg/provider/provider.go`, Diff: the annotation is honoured for Jobs only).

Which kinds (`START_COMMANDS`): `chainsaw`, whose pod (image, ServiceAccount, security
context) is the same for every Test. Not `gpu-pod`: `check-nvidia-smi` is itself a short GPU
pod (its start plus two bounded calls), and the longer GPU Jobs are created once it passed
(`plan.plan_checks`, `after`).

A start Job runs again whenever a check it gates does (its digest covers its pod and their
digests): a check that re-runs may meet nodes or a registry that its last start did not.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from components.platform.chainsaw.script import CHAINSAW_BINARY
from components.platform.checks.jobs import POD_BUILDERS, job_manifest
from components.platform.checks.model import CHECKS_NAMESPACE, STARTUP_S, ClusterCheck
from components.platform.checks.plan import CheckPlan

START_COMMANDS: dict[str, tuple[str, ...]] = {
    # The check runs `chainsaw/script.py` under `/bin/sh` on `CHAINSAW_BINARY`: starting
    # both proves the image has them. `chainsaw version` only prints (kyverno/chainsaw
    # v0.2.15 `pkg/commands/version/command.go`): no cluster, kubeconfig or writable home.
    "chainsaw": ("/bin/sh", "-c", f"exec {CHAINSAW_BINARY} version"),
}
"""The command of each kind's start Job; a kind not named here gets none."""
CHECK_OWN_POD_FIELDS = ("volumes",)
"""What a check pod has that is its check's own (its Test's ConfigMap), not its pod spec's."""
CHECK_OWN_CONTAINER_FIELDS = ("command", "args", "volumeMounts")


@dataclass(frozen=True)
class Starter:
    """One start Job: the pod spec shared by `checks`, started and nothing more."""

    name: str
    kind: str
    checks: tuple[str, ...]
    digest: str
    pod: dict[str, Any] = field(compare=False, hash=False)
    deadline_s: int = STARTUP_S


def starts_pod(kind: str, pod: dict[str, Any]) -> dict[str, Any]:
    """`pod` (a check pod of `kind`) as its start Job runs it: every pod-level field and
    every container's image, env, security context and resources as they are; the check's
    own command, volumes and mounts replaced by `START_COMMANDS[kind]`."""
    start = {k: copy.deepcopy(v) for k, v in pod.items() if k not in CHECK_OWN_POD_FIELDS}
    start["containers"] = [
        {
            **{
                k: copy.deepcopy(v)
                for k, v in container.items()
                if k not in CHECK_OWN_CONTAINER_FIELDS
            },
            "command": list(START_COMMANDS[kind]),
        }
        for container in pod["containers"]
    ]
    return start


def starters(plan: CheckPlan, namespace: str = CHECKS_NAMESPACE) -> list[Starter]:
    """One start Job per distinct start pod among the checks of `plan` whose kind has a
    start command, in the order of their first check; none without such a check."""
    groups: dict[tuple[str, str], list[ClusterCheck]] = {}
    pods: dict[tuple[str, str], dict[str, Any]] = {}
    for check in plan.checks:
        if check.kind not in START_COMMANDS:
            continue
        pod = starts_pod(check.kind, POD_BUILDERS[check.kind](check, namespace))
        key = (check.kind, json.dumps(pod, sort_keys=True))
        groups.setdefault(key, []).append(check)
        pods[key] = pod
    per_kind = Counter(kind for kind, _ in groups)
    seen: Counter[str] = Counter()
    found: list[Starter] = []
    for (kind, text), checks in groups.items():
        seen[kind] += 1
        suffix = f"-{seen[kind]}" if per_kind[kind] > 1 else ""
        covered = json.dumps([text, sorted(c.digest for c in checks)])
        found.append(
            Starter(
                name=f"{kind}-pods-start{suffix}",
                kind=kind,
                checks=tuple(c.name for c in checks),
                digest=hashlib.sha256(covered.encode()).hexdigest()[:16],
                pod=pods[kind, text],
            )
        )
    return found


def starts_job(starter: Starter, namespace: str = CHECKS_NAMESPACE) -> dict[str, Any]:
    """The start Job of `starter`: its pod once, within `STARTUP_S`, never retried."""
    return job_manifest(starter.name, namespace, starter.deadline_s, starter.digest, starter.pod)
