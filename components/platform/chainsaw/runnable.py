"""What makes a schema-valid Test fail its check Job on every run, refused at preview.

Each would plan and then fail in the cluster, so each is one message naming the key:
- a timeout Go cannot parse (`metav1.Duration`, Go's `time.ParseDuration`:
  `durations.py`): Chainsaw fails to load the Test; where the preview used to
  read no budget from it, the Job ran under the default one;
- a zero or negative timeout: Chainsaw applies it as given (v0.2.15
  `pkg/runner/operations/assert.go` bounds the operation's context by it), so the
  operation's deadline has passed before it first reads and the check always fails;
- `spec.namespace` other than the checks' namespace: the Job runs `chainsaw test
  --namespace` in it and may read only there (`checks.jobs.chainsaw_args`; v0.2.15
  `pkg/runner/namespace.go` would get or create the Test's own namespace);
- `clusters` (a kubeconfig file per name: `pkg/apis/v1alpha1/types.go` `Cluster`) or
  `cluster`, at the Test or a step: only the Test is mounted, and a check runs on the
  cluster it checks;
- a Test larger than a ConfigMap holds (its data at most 1 MiB: k8s.io/api v0.36.0
  `core/v1/types.go` `MaxSecretSize`, which ConfigMap validation applies), so the
  ConfigMap the Job mounts would be refused.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from components.platform.chainsaw.documents import operations
from components.platform.chainsaw.durations import DurationError, parse_ns

CONFIG_MAP_BYTES = 1024 * 1024
"""Kubernetes' bound on a ConfigMap's data (`MaxSecretSize`, 1 MiB)."""
_PERIODS = ("forceTerminationGracePeriod", "delayBeforeCleanup")


def _timeouts(test: Mapping[str, Any]) -> Iterator[tuple[str, Any, bool]]:
    """(path, value, whether it bounds an operation) of every duration Chainsaw loads."""
    spec = test.get("spec") or {}
    holders = [("spec", spec)] + [
        (f"spec.steps[{i}]", s or {}) for i, s in enumerate(spec.get("steps") or [])
    ]
    for at, holder in holders:
        for key, value in (holder.get("timeouts") or {}).items():
            if value is not None:
                yield f"{at}.timeouts.{key}", value, True
    for key in _PERIODS:
        if spec.get(key) is not None:
            yield f"spec.{key}", spec[key], False
    for op in operations(test):
        if isinstance(op.body, Mapping) and op.body.get("timeout") is not None:
            yield f"{op.path}.timeout", op.body["timeout"], True


def duration_problem(test: Mapping[str, Any]) -> str | None:
    """The first timeout the check Job could not use, as `KEY: reason`; None if none."""
    for path, value, bounds in _timeouts(test):
        try:
            nanoseconds = parse_ns(str(value))
        except DurationError as err:
            return (
                f"{path}: {value!r} is not a duration Chainsaw can load ({err}); write one "
                "such as 90s, 5m or 1h30m"
            )
        if bounds and nanoseconds <= 0:
            return (
                f"{path}: {value!r} is not a positive duration; Chainsaw would give the "
                "operation no time and the check would fail on every run (write one such as 5m)"
            )
    return None


def placement_problem(test: Mapping[str, Any], size: int, checks_namespace: str) -> str | None:
    """Where the Test would run or be mounted, if the check Job (run in `checks_namespace`)
    cannot, as `KEY: reason`."""
    spec = test.get("spec") or {}
    namespace = spec.get("namespace")
    if namespace and namespace != checks_namespace:
        return (
            f"spec.namespace: {namespace!r} is not the checks' namespace {checks_namespace!r}, "
            "the only one the check Job may read in; leave it unset"
        )
    holders = [("spec", spec)] + [
        (f"spec.steps[{i}]", s or {}) for i, s in enumerate(spec.get("steps") or [])
    ]
    for at, holder in holders:
        for key in ("clusters", "cluster"):
            if holder.get(key):
                return (
                    f"{at}.{key}: names another cluster (a kubeconfig file the check Job does "
                    "not have); a health check runs on the cluster it checks, remove it"
                )
    if size > CONFIG_MAP_BYTES:
        return (
            f"the Test is {size} bytes, more than a ConfigMap holds ({CONFIG_MAP_BYTES} "
            "bytes, 1 MiB), so its check Job could not mount it; make it smaller"
        )
    return None
