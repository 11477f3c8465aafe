"""`runners-ephemeral`: self-hosted GitHub runners take one job, then a fresh runner.

A persistent runner keeps one job's state (and anything it left behind) for the next.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from policy.rule import Resource

COMMANDS = ("command:remote:Command", "command:local:Command")
RUNNER_STEP = re.compile(r"^readonly GPU_CI_STEP='?github-runner'?$", re.MULTILINE)
EPHEMERAL_ON = re.compile(r"^readonly EPHEMERAL='?true'?$", re.MULTILINE)
LEGACY_RUNNERS = tuple(
    f"kubernetes:actions.summerwind.dev/v1alpha1:{kind}"
    for kind in ("Runner", "RunnerDeployment", "RunnerReplicaSet", "RunnerSet")
)


def check_runner_ephemeral(resource: Resource, config: Mapping[str, Any]) -> list[str]:
    if resource.type in COMMANDS:
        for key in ("stdin", "create"):
            script = resource.props.get(key)
            if isinstance(script, str) and RUNNER_STEP.search(script):
                if not EPHEMERAL_ON.search(script):
                    return [
                        f"{resource.where()}: the github-runner step registers a persistent "
                        "runner (EPHEMERAL is not true); set gpu-ci:runner.ephemeral: true"
                    ]
                return []
        return []
    if resource.type in LEGACY_RUNNERS:
        spec = resource.props.get("spec") or {}
        template = (spec.get("template") or {}).get("spec") or {}
        if spec.get("ephemeral") is False or template.get("ephemeral") is False:
            return [f"{resource.where()}: runners must be ephemeral (ephemeral: false is set)"]
    return []
