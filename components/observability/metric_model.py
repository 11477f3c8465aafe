"""The shape of a catalog entry (metrics.py): one exported metric and the labels it carries."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

MetricType = Literal["counter", "gauge", "histogram"]


class Metric(BaseModel):
    """One metric a component exports, with the labels it carries.

    `labels` are on every series; `optional` only on some (a GPU's pod while one holds it);
    `scraped` are what the scrape adds (the monitors' relabelings, Prometheus's target labels)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(pattern=r"^[a-zA-Z_:][a-zA-Z0-9_:]*$")
    type: MetricType
    labels: tuple[str, ...]
    buckets: tuple[float, ...] = ()
    optional: tuple[str, ...] = ()
    scraped: tuple[str, ...] = ()

    def series(self) -> tuple[str, ...]:
        """The names Prometheus stores: a histogram is `_bucket`, `_sum` and `_count`."""
        if self.type == "histogram":
            return tuple(f"{self.name}_{part}" for part in ("bucket", "sum", "count"))
        return (self.name,)


TARGET_LABELS = ("job", "instance", "namespace", "pod", "container", "endpoint")
"""What Prometheus puts on every series of a PodMonitor's target (prometheus-operator's
generated relabelings); with `honorLabels: true` a series' own label of the same name wins,
so a listener gauge keeps its scale set's `namespace` (not `exported_namespace`)."""
