"""`gpu-ci:platform:DeploymentChecks`: the check Jobs, run after the recipe's releases.

Pulumi awaits each Job (it is ready when it completes; a `Failed` condition fails the update
at once, naming the check's resource), bounded by Pulumi custom timeouts. What runs is
`check_plan.plan_checks`; the manifests are `check_jobs`.
"""

from __future__ import annotations

from typing import Any, cast

import pulumi
import pulumi_kubernetes as k8s

from components.base import MANAGED_LABELS, ComponentArgs, child, upstream
from components.platform.check_jobs import (
    CHECKS_ACCOUNT,
    CHECKS_NAMESPACE,
    gpu_smoke_job,
    reader_rules,
    resource_check_job,
)
from components.platform.check_plan import SMOKE_CHECK, CheckPlan, ExpectedObject


class DeploymentChecksArgs(ComponentArgs):
    """What DeploymentChecks needs: what to check, and how long a check may take."""

    plan: CheckPlan
    revision: str
    timeout_s: int


class DeploymentChecks(pulumi.ComponentResource):
    """The check Jobs (and their namespace and read-only RBAC), awaited by Pulumi.

    They run on the cluster of `opts.provider` (inherited from a parent that has one), after
    what `opts.depends_on` names: the releases, manifests and patches they check."""

    jobs: dict[str, k8s.batch.v1.Job]
    results: pulumi.Output[dict[str, dict[str, Any]]]

    def __init__(
        self, name: str, args: DeploymentChecksArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gpu-ci:platform:DeploymentChecks", name, None, opts)
        plan = args.plan
        self.jobs = {}
        namespace = k8s.core.v1.Namespace(
            f"{name}-ns",
            metadata={"name": CHECKS_NAMESPACE, "labels": MANAGED_LABELS},
            opts=child(self),
        )
        after: list[pulumi.Resource] = [*upstream(opts), namespace]
        objects = [o for objs in plan.resource_checks.values() for o in objs]
        if objects:
            after.extend(self._rbac(name, namespace, objects))
        timeouts = pulumi.CustomTimeouts(
            create=f"{args.timeout_s + 120}s", update=f"{args.timeout_s + 120}s"
        )
        manifests: dict[str, dict[str, Any]] = {}
        if plan.smoke:
            manifests[SMOKE_CHECK] = gpu_smoke_job(CHECKS_NAMESPACE, args.revision, args.timeout_s)
        for check, objs in plan.resource_checks.items():
            manifests[check] = resource_check_job(
                check, CHECKS_NAMESPACE, objs, args.revision, args.timeout_s
            )
        for check, manifest in manifests.items():
            self.jobs[check] = k8s.batch.v1.Job(
                f"{name}-{check}",
                metadata=manifest["metadata"],
                spec=manifest["spec"],
                opts=child(
                    self,
                    depends_on=after,
                    custom_timeouts=timeouts,
                    replace_on_changes=["spec"],
                ),
            )
        self.results = _results(self.jobs)
        self.register_outputs({"results": self.results, "notRun": plan.not_run})

    def _rbac(
        self,
        name: str,
        namespace: k8s.core.v1.Namespace,
        objects: list[ExpectedObject],
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
                    api_groups=r["apiGroups"], resources=r["resources"], verbs=r["verbs"]
                )
                for r in reader_rules(objects)
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


def _result(check: str, job: k8s.batch.v1.Job) -> pulumi.Output[dict[str, Any]]:
    def shape(args: list[Any]) -> dict[str, Any]:
        meta, status = args
        succeeded = getattr(status, "succeeded", None) if status is not None else None
        failed = getattr(status, "failed", None) if status is not None else None
        verdict = "passed" if succeeded else "failed" if failed else "pending"
        return {
            "check": check,
            "job": getattr(meta, "name", None) if meta is not None else None,
            "namespace": CHECKS_NAMESPACE,
            "result": verdict,
        }

    return pulumi.Output.all(job.metadata, job.status).apply(shape)


def _results(jobs: dict[str, k8s.batch.v1.Job]) -> pulumi.Output[dict[str, dict[str, Any]]]:
    names = list(jobs)
    outputs = [_result(n, jobs[n]) for n in names]
    return pulumi.Output.all(*outputs).apply(lambda rs: dict(zip(names, rs, strict=True)))
