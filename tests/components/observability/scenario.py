"""The scenario every query test replays: two ARC scale sets over four hours, two GPU hosts.

Ground truth first (JOBS: what ran, when, how long), then the series the exporters emit for
it (series.py). Minutes 0-240, one scrape a minute; the dashboard's range is the last 3 h
(60-240), so the hour before it (0-60) holds the series that were already there.

- `gpu-a10` (vm-launcher): its listener pod is replaced at minute 150 (a new IP: every
  series starts again as a new series), so job J5's series appears mid-range.
- `gpu-a10-pod` (gpu-pod): its listener container restarts in place at minute 200 (same
  pod and IP: the same series, reset to zero), and job J8 has a job name never seen before.
- GPUs: `gpu-node-a` and `gpu-node-b`, one A10 each, both `gpu="0"`. A job pod holds
  node a's GPU from minute 60 to 120 (the exporter's pod labels replace the exporter's own).
"""

from __future__ import annotations

from components.observability.metrics import EXECUTION_BUCKETS, JOB_DURATION_BUCKETS
from tests.components.observability.series import (
    END,
    Gpu,
    Job,
    Listener,
    Point,
    constant,
    dcgm,
    listener_series,
)

WINDOW = (60, END)
"""The dashboard's range when the queries are evaluated at END with `$__range` = 3h."""
BUCKETS = {
    "gha_job_startup_duration_seconds": JOB_DURATION_BUCKETS,
    "gha_job_execution_duration_seconds": EXECUTION_BUCKETS,
}
E2E, SMOKE = "e2e (3.11)", "smoke"
A10, POD = "gpu-a10", "gpu-a10-pod"
JOBS = [
    Job("gpu-a10", E2E, "pull_request", "succeeded", start=10, end=40, startup_s=240),  # J1
    Job("gpu-a10-pod", E2E, "pull_request", "succeeded", start=20, end=55, startup_s=30),  # J2
    Job("gpu-a10", E2E, "pull_request", "succeeded", start=70, end=130, startup_s=600),  # J3
    Job("gpu-a10", "e2e (3.12)", "push", "failed", start=90, end=100, startup_s=300),  # J4
    Job("gpu-a10", E2E, "pull_request", "succeeded", start=160, end=220, startup_s=900),  # J5
    Job("gpu-a10-pod", E2E, "pull_request", "succeeded", start=150, end=190, startup_s=20),  # J6
    Job("gpu-a10-pod", E2E, "pull_request", "succeeded", start=205, end=235, startup_s=45),  # J7
    Job("gpu-a10-pod", SMOKE, "pull_request", "cancelled", start=210, end=212, startup_s=15),  # J8
]
LIVES = [
    Listener(A10, "gpu-a10-754b578d-listener", "10.0.1.5", start=0, end=150),
    Listener(A10, "gpu-a10-754b578d-listener", "10.0.1.9", start=150),
    Listener(POD, "gpu-a10-pod-5d4f7c8b-listener", "10.0.2.7", start=0, end=200),
    Listener(POD, "gpu-a10-pod-5d4f7c8b-listener", "10.0.2.7", start=200),
]
STEADY_LIVES = [LIVES[0], LIVES[1], Listener(POD, "gpu-a10-pod-5d4f7c8b-listener", "10.0.2.7", 0)]
"""The same jobs with no in-place restart: every series is born inside a week (the usage
queries' window), where a series born and reset inside one window counts its larger life."""


def listener(lives: list[Listener] = LIVES) -> list[dict[str, str]]:
    return listener_series(lives, JOBS, BUCKETS)


def in_window(job_minute: int, window: tuple[int, int] = WINDOW) -> bool:
    """Inside (start, end], as Prometheus 3's range selectors are left-open: the sample at
    the window's first minute is the value before it."""
    return window[0] < job_minute <= window[1]


RESTARTED = (POD, E2E)
"""The series (scale set, job name) the in-place restart at minute 200 resets inside the range;
its jobs in the range are J6 and J7."""
STRETCH = 180 / 179
"""What `increase()` makes of that series in the range: its samples span minutes 61-240,
extrapolated to the range's 180 minutes (promql/functions.go `extrapolatedRate`, Prometheus
v3.11.3). Its seconds read that much more; its counts are rounded back to whole jobs."""


GPU_A = Gpu("gpu-node-a", "GPU-5f6d1c2a-9b1e-4f7a-8c3d-0a1b2c3d4e5f", "10.0.3.4")
GPU_B = Gpu("gpu-node-b", "GPU-8e7f6a5b-4c3d-4b2a-9f1e-1a2b3c4d5e6f", "10.0.3.5")
JOB_POD = ("arc-runners", "gpu-a10-pod-runner-7x2lq", "runner")
HELD = (60, 120)
"""Node a's GPU is held by JOB_POD from minute 60 up to 120."""


def _held(metric: str, gpu: Gpu, idle: Point, busy: Point) -> list[dict[str, str]]:
    """One GPU's series: the exporter's own pod labels, the job pod's while it holds the GPU
    (a new series: the old one goes stale), then the exporter's again."""
    start, end = HELD
    before = {**constant(idle, 0, start), start: "stale"}
    during = {**constant(busy, start, end), end: "stale"}
    after = constant(idle, end)
    return [
        dcgm(metric, gpu, {**before, **after}),
        dcgm(metric, gpu, during, pod=JOB_POD),
    ]


def gpus() -> list[dict[str, str]]:
    return [
        *_held("DCGM_FI_DEV_GPU_UTIL", GPU_A, 0.0, 100.0),
        dcgm("DCGM_FI_DEV_GPU_UTIL", GPU_B, constant(40.0)),
        *_held("DCGM_FI_DEV_FB_USED", GPU_A, 300.0, 12000.0),
        *_held("DCGM_FI_DEV_FB_FREE", GPU_A, 23100.0, 11400.0),
        *_held("DCGM_FI_DEV_FB_RESERVED", GPU_A, 600.0, 600.0),
        dcgm("DCGM_FI_DEV_FB_USED", GPU_B, constant(6000.0)),
        dcgm("DCGM_FI_DEV_FB_FREE", GPU_B, constant(17400.0)),
        dcgm("DCGM_FI_DEV_FB_RESERVED", GPU_B, constant(600.0)),
    ]


def bucket_quantile(q: float, observations: list[float], bounds: tuple[float, ...]) -> float:
    """Prometheus's histogram_quantile over the buckets these observations fill
    (promql/quantile.go bucketQuantile: linear inside the bucket the rank falls in)."""
    les = [*bounds, float("inf")]
    counts = [float(sum(1 for o in observations if o <= le)) for le in les]
    rank = q * counts[-1]
    b = next(i for i, c in enumerate(counts[:-1]) if c >= rank)
    start, end, count = 0.0, les[b], counts[b]
    if b > 0:
        start = les[b - 1]
        count -= counts[b - 1]
        rank -= counts[b - 1]
    return start + (end - start) * (rank / count)
