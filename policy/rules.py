"""gpu-ci's mandatory policies, `RULES`: plain functions over a resource's type and inputs.

`policy/__main__.py` wraps each rule (`policy.rule`) into a pulumi-policy policy, so
`pulumi preview --policy-pack policy` enforces them; tests run the same functions over the
resources the offline plan records. Each rule is a module of its own, named below.

The package imports nothing but the standard library: the pack runs in its own virtualenv
(pulumi and pulumi-policy only), and `gpu-ci:network` imports `policy.world_openings`.

Rules, each in its module:
- `no-world-open-ingress` (`ingress`, a stack rule): the OCI NSG rules and security lists
  of a stack, together, open no port to the whole internet, except ports listed in the
  policy config `allowedWorldPorts` (none by default). The union of the sources that reach
  each port is judged (`world_openings`): `0.0.0.0/1` plus `128.0.0.0/1` is `0.0.0.0/0`,
  and IPv6 blocks carrying IPv4 addresses (`::ffff:0:0/96`, `::/96`, `2002::/16`) count as
  those addresses.
- `helm-chart-versions-pinned` (`chart_versions`): every Helm release (and v4 Chart) names
  an exact chart version, not a range; local chart paths are exempt.
- `images-pinned-by-digest` (`image_digests`): every container image of a Pod, Job,
  CronJob, Deployment, DaemonSet, StatefulSet or ReplicaSet the program renders carries
  `@sha256:<digest>`. Exception: repositories in `tagPinnedRepositories` (default:
  `registry.k8s.io/kubectl`, whose release tags are immutable, and `docker.io/alpine/k8s`,
  the ARC cleanup CronJob's; no digest of either could be confirmed offline) may use an
  exact version tag instead. Images inside Helm values are pinned by the chart version and
  the stack config (the ARC launcher image must be a digest there), not here.
- `runners-ephemeral` (`runners`): a host's github-runner step registers ephemeral runners
  (`EPHEMERAL=true`); legacy actions-runner-controller runners (summerwind CRDs) must not
  set `ephemeral: false`. ARC scale sets (gha-runner-scale-set) are ephemeral by design.
- `gpu-instances-tagged` (`gpu_tags`): every OCI GPU instance, and the nodes of every GPU
  node pool, carry non-empty `gpu-ci-stack` and `gpu-ci-owner` freeform tags.
- `no-plaintext-secrets-in-pod-env` (`env_secrets`): no container env var (in any
  Kubernetes resource, Helm values included) holds a credential as a literal `value`: names
  with TOKEN, KEY, PASSWORD, SECRET or CREDENTIALS (not ending in FILE, PATH, DIR, NAME, ID
  or FINGERPRINT) and values that look like keys or tokens must come from
  `valueFrom.secretKeyRef`.
"""

from __future__ import annotations

from policy.chart_versions import check_chart_version
from policy.env_secrets import check_env_secrets
from policy.gpu_tags import check_gpu_tags
from policy.image_digests import TAG_PINNED_REPOSITORIES, check_image_digest
from policy.ingress import check_world_ingress
from policy.rule import Rule, StackRule
from policy.runners import check_runner_ephemeral

RULES: tuple[Rule | StackRule, ...] = (
    StackRule(
        "no-world-open-ingress",
        "The stack's OCI NSG rules and security lists, together, open no port to the whole "
        "IPv4 or IPv6 internet, however the sources are spelled, except explicitly allowed "
        "ports.",
        check_world_ingress,
        {
            "allowedWorldPorts": {
                "type": "array",
                "items": {"type": "integer", "minimum": 1, "maximum": 65535},
                "default": [],
            }
        },
    ),
    Rule(
        "helm-chart-versions-pinned",
        "Every Helm release names an exact chart version, not a range.",
        check_chart_version,
    ),
    Rule(
        "images-pinned-by-digest",
        "Container images of rendered workloads are pinned by digest (documented "
        "repositories: an exact version tag).",
        check_image_digest,
        {
            "tagPinnedRepositories": {
                "type": "array",
                "items": {"type": "string"},
                "default": TAG_PINNED_REPOSITORIES,
            }
        },
    ),
    Rule(
        "runners-ephemeral",
        "Self-hosted GitHub runners are ephemeral: one job, then a fresh runner.",
        check_runner_ephemeral,
    ),
    Rule(
        "gpu-instances-tagged",
        "GPU instances carry the gpu-ci-stack and gpu-ci-owner freeform tags.",
        check_gpu_tags,
    ),
    Rule(
        "no-plaintext-secrets-in-pod-env",
        "No credential is a literal env value of a container; use a secretKeyRef.",
        check_env_secrets,
    ),
)
