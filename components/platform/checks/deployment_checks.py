"""`gpu-ci:platform:DeploymentChecks`: the check Jobs, run after the recipe's releases.

Pulumi awaits each Job (it is ready when it completes; a `Failed` condition fails the update
at once, naming the check's resource, with the log tail of its pod and the warnings
pulumi-kubernetes' Job await collected from its pods: `provider/pkg/await/job.go`, the
PodAggregator's messages), bounded by Pulumi custom timeouts. A check that names others in
`after` (the GPU Jobs after `check-nvidia-smi`) is created once their Jobs passed, and a
Chainsaw check once its pod spec's start Job passed (`starts.py`: a pod that cannot
start fails that short Job, not the check after its long deadline). What runs is
`plan.plan_checks`; the objects are `jobs`: per
chainsaw check its Test's ConfigMap, per check a Job; one namespace, and one ServiceAccount
with a ClusterRole that reads exactly what the chainsaw checks read.
"""

from __future__ import annotations

from typing import Any, cast

import pulumi
import pulumi_kubernetes as k8s

from components.base import MANAGED_LABELS, ComponentArgs, child, upstream
from components.platform.checks.jobs import CHECKS_ACCOUNT, check_job, config_map, reader_rules
from components.platform.checks.model import CHECKS_NAMESPACE
from components.platform.checks.plan import CheckPlan
from components.platform.checks.starts import starters, starts_job


class DeploymentChecksArgs(ComponentArgs):
    """What DeploymentChecks needs: the planned checks (each with its own timeout)."""

    plan: CheckPlan


class DeploymentChecks(pulumi.ComponentResource):
    """The check Jobs (and their namespace, Tests and read-only RBAC), awaited by Pulumi.

    They run on the cluster of `opts.provider` (inherited from a parent that has one), after
    what `opts.depends_on` names: the releases, manifests and patches they check."""

    jobs: dict[str, k8s.batch.v1.Job]
    starts: dict[str, k8s.batch.v1.Job]
    """The start Jobs (`starts.Starter.name`), which the checks they gate wait for."""
    tests: dict[str, k8s.core.v1.ConfigMap]
    results: pulumi.Output[dict[str, dict[str, Any]]]

    def __init__(
        self, name: str, args: DeploymentChecksArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gpu-ci:platform:DeploymentChecks", name, None, opts)
        plan = args.plan
        self.jobs, self.starts, self.tests = {}, {}, {}
        # Everything here waits for the namespace, which waits for what the checks check
        # (`opts.depends_on`): one set of edges instead of one per Job.
        namespace = k8s.core.v1.Namespace(
            f"{name}-ns",
            metadata={"name": CHECKS_NAMESPACE, "labels": MANAGED_LABELS},
            opts=child(self, depends_on=upstream(opts)),
        )
        after: list[pulumi.Resource] = [namespace]
        rules = reader_rules(plan)
        if rules:
            after.extend(self._rbac(name, namespace, rules))
        gate: dict[str, k8s.batch.v1.Job] = {}
        for starter in starters(plan, CHECKS_NAMESPACE):
            start = starts_job(starter, CHECKS_NAMESPACE)
            self.starts[starter.name] = started = self._job(name, starter.name, start, after)
            gate.update(dict.fromkeys(starter.checks, started))
        for check in plan.checks:
            needs = list(after) + [self.jobs[n] for n in check.after]
            needs += [gate[check.name]] if check.name in gate else []
            if check.kind == "chainsaw":
                manifest = config_map(check, CHECKS_NAMESPACE)
                self.tests[check.name] = test = k8s.core.v1.ConfigMap(
                    f"{name}-{check.name}",
                    metadata=manifest["metadata"],
                    immutable=True,
                    data=manifest["data"],
                    opts=child(self, depends_on=[namespace]),
                )
                needs.append(test)
            job = check_job(check, CHECKS_NAMESPACE)
            self.jobs[check.name] = self._job(name, check.name, job, needs)
        self.results = _results(plan, self.jobs)
        self.register_outputs(
            {"results": self.results, "notRun": plan.not_run, "covered": plan.covered}
        )

    def _job(
        self, name: str, check: str, job: dict[str, Any], needs: list[pulumi.Resource]
    ) -> k8s.batch.v1.Job:
        """The Job `job` (`jobs.job_manifest`), awaited up to its deadline and 2 min
        more, replaced (so run again) whenever its spec changes."""
        timeout = f"{job['spec']['activeDeadlineSeconds'] + 120}s"
        return k8s.batch.v1.Job(
            f"{name}-{check}",
            metadata=job["metadata"],
            spec=job["spec"],
            opts=child(
                self,
                depends_on=needs,
                custom_timeouts=pulumi.CustomTimeouts(create=timeout, update=timeout),
                replace_on_changes=["spec"],
            ),
        )

    def _rbac(
        self,
        name: str,
        namespace: k8s.core.v1.Namespace,
        rules: list[dict[str, Any]],
    ) -> list[pulumi.Resource]:
        account = k8s.core.v1.ServiceAccount(
            f"{name}-reader",
            metadata={
                "name": CHECKS_ACCOUNT,
                "namespace": CHECKS_NAMESPACE,
                "labels": MANAGED_LABELS,
            },
            automount_service_account_token=True,
            opts=child(self, depends_on=[namespace]),
        )
        role = k8s.rbac.v1.ClusterRole(
            f"{name}-reader",
            metadata={"labels": MANAGED_LABELS},
            rules=[
                k8s.rbac.v1.PolicyRuleArgs(
                    api_groups=r["apiGroups"],
                    resources=r["resources"],
                    verbs=r["verbs"],
                    resource_names=r.get("resourceNames"),
                )
                for r in rules
            ],
            opts=child(self),
        )
        binding = k8s.rbac.v1.ClusterRoleBinding(
            f"{name}-reader",
            metadata={"labels": MANAGED_LABELS},
            role_ref=k8s.rbac.v1.RoleRefArgs(
                api_group="rbac.authorization.k8s.io",
                kind="ClusterRole",
                name=role.metadata.apply(_name),
            ),
            subjects=[
                k8s.rbac.v1.SubjectArgs(
                    kind="ServiceAccount", name=CHECKS_ACCOUNT, namespace=CHECKS_NAMESPACE
                )
            ],
            opts=child(self, depends_on=[account, role]),
        )
        return [account, role, binding]


def _name(meta: k8s.meta.v1.outputs.ObjectMeta) -> str:
    """The name the provider gave an auto-named object (it always sets one)."""
    return cast(str, meta.name)


def _results(
    plan: CheckPlan, jobs: dict[str, k8s.batch.v1.Job]
) -> pulumi.Output[dict[str, dict[str, Any]]]:
    names = list(jobs)

    def one(check: str) -> pulumi.Output[dict[str, Any]]:
        planned = plan.by_name[check]

        def shape(args: list[Any]) -> dict[str, Any]:
            meta, status = args
            succeeded = getattr(status, "succeeded", None) if status is not None else None
            failed = getattr(status, "failed", None) if status is not None else None
            return {
                "check": check,
                "kind": planned.kind,
                "covers": list(planned.covers),
                "source": planned.source or None,
                "job": getattr(meta, "name", None) if meta is not None else None,
                "namespace": CHECKS_NAMESPACE,
                "result": "passed" if succeeded else "failed" if failed else "pending",
            }

        return pulumi.Output.all(jobs[check].metadata, jobs[check].status).apply(shape)

    return pulumi.Output.all(*[one(n) for n in names]).apply(
        lambda rs: dict(zip(names, rs, strict=True))
    )
