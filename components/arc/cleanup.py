"""FailedRunnerCleanup: a CronJob that deletes EphemeralRunners whose phase is Failed.

An EphemeralRunner that failed to start too often is left in phase `Failed` and still
counts against the scale set, so scale-up stalls until someone deletes it (a long-standing
ARC problem, e.g. actions/actions-runner-controller#4258; CNCF runs the same CronJob every
10 minutes). `kubectl` cannot select custom resources by a status field, so the job lists
them with a JSONPath filter and deletes each by name, in the runners' namespace only.

RBAC: a ServiceAccount with a Role that may only list and delete EphemeralRunners there.
"""

from __future__ import annotations

from typing import Any

import pulumi
import pulumi_kubernetes as k8s
from pydantic import Field

from components.arc.cleanup_config import FailedRunnerCleanup as CleanupConfig
from components.arc.pod_spec import Placement
from components.base import MANAGED_LABELS, ComponentArgs, child, upstream

ACCOUNT = "gpu-ci-runner-cleanup"

SCRIPT = """\
set -eu
failed=$(kubectl get ephemeralrunners.actions.github.com -n "$NAMESPACE" \\
  -o jsonpath='{range .items[?(@.status.phase=="Failed")]}{.metadata.name}{"\\n"}{end}')
for runner in $failed; do
  echo "deleting failed EphemeralRunner $NAMESPACE/$runner"
  kubectl delete ephemeralrunners.actions.github.com -n "$NAMESPACE" "$runner" --wait=false
done
echo "failed EphemeralRunners deleted: $(printf '%s\\n' $failed | grep -c . || true)"
"""


def cleanup_job_spec(config: CleanupConfig, namespace: str, placement: Placement) -> dict[str, Any]:
    """The CronJob's spec (pure: tested without Pulumi)."""
    container = {
        "name": "cleanup",
        "image": config.image,
        "command": ["/bin/sh", "-c", SCRIPT],
        "env": [
            {"name": "NAMESPACE", "value": namespace},
            {"name": "HOME", "value": "/tmp"},
        ],
        "resources": {
            "requests": {"cpu": "10m", "memory": "64Mi"},
            "limits": {"cpu": "200m", "memory": "128Mi"},
        },
        "securityContext": {
            "allowPrivilegeEscalation": False,
            "capabilities": {"drop": ["ALL"]},
        },
    }
    return {
        "schedule": config.schedule,
        "concurrencyPolicy": "Forbid",
        "successfulJobsHistoryLimit": 1,
        "failedJobsHistoryLimit": 3,
        "jobTemplate": {
            "spec": {
                "backoffLimit": 0,
                "activeDeadlineSeconds": 300,
                "ttlSecondsAfterFinished": 3600,
                "template": {
                    "spec": {
                        "serviceAccountName": ACCOUNT,
                        "restartPolicy": "Never",
                        "containers": [container],
                        **placement.pod_fields(),
                    }
                },
            }
        },
    }


class FailedRunnerCleanupArgs(ComponentArgs):
    namespace: str
    config: CleanupConfig
    placement: Placement = Field(default_factory=Placement)


class FailedRunnerCleanup(pulumi.ComponentResource):
    """The CronJob and its RBAC, on the cluster of `opts.provider`, after what
    `opts.depends_on` names (the controller, whose CRDs it lists)."""

    cron_job: k8s.batch.v1.CronJob

    def __init__(
        self, name: str, args: FailedRunnerCleanupArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gpu-ci:arc:FailedRunnerCleanup", name, None, opts)
        ns = args.namespace

        def meta(object_name: str) -> dict[str, Any]:
            return {"name": object_name, "namespace": ns, "labels": dict(MANAGED_LABELS)}

        after = upstream(opts)
        account = k8s.core.v1.ServiceAccount(
            f"{name}-account",
            metadata=meta(ACCOUNT),
            opts=child(self, depends_on=after),
        )
        role = k8s.rbac.v1.Role(
            f"{name}-role",
            metadata=meta(ACCOUNT),
            rules=[
                {
                    "apiGroups": ["actions.github.com"],
                    "resources": ["ephemeralrunners"],
                    "verbs": ["get", "list", "delete"],
                }
            ],
            opts=child(self, depends_on=after),
        )
        binding = k8s.rbac.v1.RoleBinding(
            f"{name}-binding",
            metadata=meta(ACCOUNT),
            role_ref={"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": ACCOUNT},
            subjects=[{"kind": "ServiceAccount", "name": ACCOUNT, "namespace": ns}],
            opts=child(self, depends_on=[account, role]),
        )
        self.cron_job = k8s.batch.v1.CronJob(
            name,
            metadata=meta("gpu-ci-failed-runner-cleanup"),
            spec=cleanup_job_spec(args.config, ns, args.placement),
            opts=child(self, depends_on=[*after, binding]),
        )
        self.register_outputs({"schedule": args.config.schedule, "namespace": ns})
