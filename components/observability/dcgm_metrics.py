"""The GPU metrics: DCGM exporter fields as the exporter the pinned GPU operator deploys emits them.

The GPU operator v26.7.0 (recipes/catalog/registry.yaml) deploys dcgm-exporter
`4.6.0-4.8.3-distroless` (shared/upstream/charts/gpu-operator/values.yaml, gpu-operator @
a22dbf67, `dcgmExporter.version`, line 304) with `DCGM_EXPORTER_COLLECTORS=
/etc/dcgm-exporter/dcp-metrics-included.csv` (NVIDIA/gpu-operator
assets/state-dcgm-exporter/0800_daemonset.yaml) and `NODE_NAME` from the pod's node.

Labels, from NVIDIA/dcgm-exporter at tag 4.6.0-4.8.3 (release PR #711, commit 7ad58324):
- internal/pkg/rendermetrics/render_metrics.go, `metricLabels`, `case dcgm.FE_GPU`: `gpu`,
  the UUID label (`UUID`), `pci_bus_id`, `device`, `modelName`, `GPU_I_PROFILE`/`GPU_I_ID` on
  a MIG instance, then `builder.add("hostname", metric.Hostname)`: lower case since PR #655
  ("Rename Hostname label to hostname", merged 2026-05-12). Exporters before it label
  `Hostname`; per-GPU queries group by `UUID` first, a label every version has, so GPUs on
  different hosts never merge whatever the host label is called.
- internal/pkg/collector/gpu_collector.go, `toMetric`: `err_code`/`err_msg` on
  `DCGM_FI_DEV_XID_ERRORS` only; label-type fields of the counters file as labels
  (`DCGM_FI_DRIVER_VERSION`, dcp-metrics-included.csv line 70).
- `namespace`/`pod`/`container` of the pod holding the GPU (the Kubernetes pod mapper,
  `DCGM_EXPORTER_KUBERNETES=true`), only while a pod holds it.

Fields: each one read is enabled in etc/dcp-metrics-included.csv at the same tag
(COUNTERS_FILE_LINES). AICR's own exporter counters (its gpu-operator values) leave
FB_RESERVED out; the memory query reads it as 0 where it is not exported.
"""

from __future__ import annotations

from components.observability.metric_model import TARGET_LABELS, Metric

DCGM_EXPORTER_VERSION = "4.6.0-4.8.3"
"""The dcgm-exporter release the pinned GPU operator deploys (its image tag, less the flavour)."""
DCGM_EXPORTER_COMMIT = "7ad58324b4447b64dc3dedf946b889b648b7f476"
COUNTERS_FILE_LINES = {
    "DCGM_FI_DEV_GPU_TEMP": 11,
    "DCGM_FI_DEV_POWER_USAGE": 14,
    "DCGM_FI_DEV_GPU_UTIL": 23,
    "DCGM_FI_DEV_MEM_COPY_UTIL": 24,
    "DCGM_FI_DEV_XID_ERRORS": 29,
    "DCGM_FI_DEV_FB_FREE": 38,
    "DCGM_FI_DEV_FB_USED": 39,
    "DCGM_FI_DEV_FB_RESERVED": 40,
}
"""The line of etc/dcp-metrics-included.csv (dcgm-exporter @ DCGM_EXPORTER_COMMIT) that enables
each field read here, every one `gauge`."""
HOST_LABEL = "hostname"
"""The exporter's host label at DCGM_EXPORTER_VERSION (PR #655; `Hostname` before it)."""
GPU_LABELS = ("gpu", "UUID", "pci_bus_id", "device", "modelName", HOST_LABEL)
COUNTER_LABELS = ("DCGM_FI_DRIVER_VERSION",)
POD_LABELS = ("namespace", "pod", "container")
MIG_LABELS = ("GPU_I_PROFILE", "GPU_I_ID")
XID_LABELS = ("err_code", "err_msg")
SERVICE_MONITOR_SCRAPE = (*TARGET_LABELS, "service")
"""The operator's ServiceMonitor's target labels; `honorLabels: true` (set through the recipe's
values, stacks/layers/observability.py) keeps the exporter's own `namespace`/`pod`/`container`."""


def _dcgm(name: str, extra: tuple[str, ...] = ()) -> Metric:
    return Metric(
        name=name,
        type="gauge",
        labels=(*GPU_LABELS, *COUNTER_LABELS, *extra),
        optional=(*POD_LABELS, *MIG_LABELS),
        scraped=SERVICE_MONITOR_SCRAPE,
    )


DCGM_METRICS: tuple[Metric, ...] = (
    *(
        _dcgm(name)
        for name in (
            "DCGM_FI_DEV_GPU_UTIL",
            "DCGM_FI_DEV_MEM_COPY_UTIL",
            "DCGM_FI_DEV_FB_USED",
            "DCGM_FI_DEV_FB_FREE",
            "DCGM_FI_DEV_FB_RESERVED",
            "DCGM_FI_DEV_GPU_TEMP",
            "DCGM_FI_DEV_POWER_USAGE",
        )
    ),
    _dcgm("DCGM_FI_DEV_XID_ERRORS", XID_LABELS),
)

KSM_METRICS: tuple[Metric, ...] = (
    Metric(
        name="kube_node_info",
        type="gauge",
        labels=("node",),
        optional=(
            "kernel_version",
            "os_image",
            "container_runtime_version",
            "kubelet_version",
            "kubeproxy_version",
            "provider_id",
            "pod_cidr",
            "system_uuid",
            "internal_ip",
        ),
        scraped=SERVICE_MONITOR_SCRAPE,
    ),
)
"""kube-state-metrics (in kube-prometheus-stack; docs/metrics/cluster/node-metrics.md): one
series per node, `node` its name, which is also the DCGM exporter's `hostname` (NODE_NAME)."""
