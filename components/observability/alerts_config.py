"""`gpu-ci:observability.alerts`: the thresholds of the GPU CI alerts (alerts.py).

Each is a Prometheus duration (the `for` of its rule, or the window it looks back over), read
as Prometheus reads a rule's `for` (durations.py). The defaults fit GPU CI as the field notes
describe it: a job waits minutes for a VM to launch and boot, a GPU e2e job runs about an hour.
"""

from __future__ import annotations

from pydantic import Field, field_validator

from components.config_base import ConfigModel
from components.observability.durations import duration

THRESHOLDS = (
    "jobsWaitingLongerThan",
    "runnersUnregisteredLongerThan",
    "listenerDownLongerThan",
    "gpusIdleWhileJobsWaitLongerThan",
    "gpuMissingLongerThan",
)


class AlertsConfig(ConfigModel):
    """Alerts as code: a PrometheusRule beside the dashboard."""

    enabled: bool = Field(
        True, description="the PrometheusRule `gpu-ci-alerts` (false: no alert rules)"
    )
    jobsWaitingLongerThan: str = Field(
        "15m",
        description="GpuJobsWaiting: a GPU job has been queued in GitHub with no runner for "
        "this long (the queue-time exporter; without it: jobs assigned to a scale set but not "
        "running for this long without a break)",
    )
    runnersUnregisteredLongerThan: str = Field(
        "20m",
        description="GpuRunnersNotRegistering: a scale set has wanted more runners than are "
        "registered with GitHub for this long (a VM's launch and boot take minutes)",
    )
    listenerDownLongerThan: str = Field(
        "5m",
        description="ArcListenerDown / ArcControllerDown: a scale set's listener (or the ARC "
        "controller) has not answered a scrape for this long",
    )
    gpusIdleWhileJobsWaitLongerThan: str = Field(
        "15m",
        description="GpuIdleWhileJobsWait: a cluster GPU has been idle while a scale set had "
        "jobs waiting, for this long",
    )
    gpuMissingLongerThan: str = Field(
        "5m",
        description="GpuMissing: a GPU the DCGM exporter reported in the last day has not "
        "been reported for this long while its node is still in the cluster",
    )

    @field_validator(*THRESHOLDS)
    @classmethod
    def _threshold(cls, value: str) -> str:
        duration(value, "an alert threshold")
        return value
