"""Which resource types a check's ServiceAccount may read, from a Test's `apiVersion`/`kind`.

The checks' read-only RBAC (`checks/deployment_checks.py`) is built from these pairs, and a catalog
is untrusted input, so a pair becomes a Role rule only when it names exactly one resource
type the cluster's API can serve (in RBAC `*` matches every group and resource, core
included: kubernetes `pkg/apis/rbac/v1/evaluation_helpers.go` `APIGroupMatches`, v1.36):
- a Kubernetes API group (core, `apps`, `*.k8s.io`, ...) serves the kinds of its table
  below, each with its real resource name (k8s.io/api v0.36.0, `*/register.go`), and
  nothing else: a kind a group does not have is refused, and so is `Secret`;
- any other group is a CRD's, which the program cannot look up offline: the pair must have
  the shape a CRD can register (apiextensions-apiserver v0.35.0
  `pkg/apis/apiextensions/validation/validation.go`: the group a DNS subdomain with a dot,
  the version and the lower-cased kind DNS-1035 labels), and the resource is the name the
  API server guesses for the kind (`plural`).
So no `*`, no whitespace and no `/` in a kind can reach a rule.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Read:
    """Read access a check needs to one resource type (optionally to named objects only)."""

    group: str
    resource: str
    names: tuple[str, ...] = ()


CORE_KINDS = {
    "ConfigMap": "configmaps",
    "Endpoints": "endpoints",
    "Event": "events",
    "LimitRange": "limitranges",
    "Namespace": "namespaces",
    "Node": "nodes",
    "PersistentVolume": "persistentvolumes",
    "PersistentVolumeClaim": "persistentvolumeclaims",
    "Pod": "pods",
    "PodTemplate": "podtemplates",
    "ReplicationController": "replicationcontrollers",
    "ResourceQuota": "resourcequotas",
    "Service": "services",
    "ServiceAccount": "serviceaccounts",
}
"""Core (`v1`) kinds a check may read (k8s.io/api v0.36.0 `core/v1/register.go`); never
`Secret`, whose objects hold credentials."""
BUILT_IN: dict[str, dict[str, str]] = {
    "": CORE_KINDS,
    "apps": {
        "ControllerRevision": "controllerrevisions",
        "DaemonSet": "daemonsets",
        "Deployment": "deployments",
        "ReplicaSet": "replicasets",
        "StatefulSet": "statefulsets",
    },
    "batch": {"CronJob": "cronjobs", "Job": "jobs"},
    "autoscaling": {"HorizontalPodAutoscaler": "horizontalpodautoscalers"},
    "policy": {"PodDisruptionBudget": "poddisruptionbudgets"},
    "admissionregistration.k8s.io": {
        "MutatingWebhookConfiguration": "mutatingwebhookconfigurations",
        "ValidatingAdmissionPolicy": "validatingadmissionpolicies",
        "ValidatingAdmissionPolicyBinding": "validatingadmissionpolicybindings",
        "ValidatingWebhookConfiguration": "validatingwebhookconfigurations",
    },
    "apiextensions.k8s.io": {"CustomResourceDefinition": "customresourcedefinitions"},
    "apiregistration.k8s.io": {"APIService": "apiservices"},
    "coordination.k8s.io": {"Lease": "leases"},
    "discovery.k8s.io": {"EndpointSlice": "endpointslices"},
    "events.k8s.io": {"Event": "events"},
    "networking.k8s.io": {
        "Ingress": "ingresses",
        "IngressClass": "ingressclasses",
        "NetworkPolicy": "networkpolicies",
    },
    "node.k8s.io": {"RuntimeClass": "runtimeclasses"},
    "resource.k8s.io": {
        "DeviceClass": "deviceclasses",
        "ResourceClaim": "resourceclaims",
        "ResourceClaimTemplate": "resourceclaimtemplates",
        "ResourceSlice": "resourceslices",
    },
    "scheduling.k8s.io": {"PriorityClass": "priorityclasses"},
    "storage.k8s.io": {
        "CSIDriver": "csidrivers",
        "CSINode": "csinodes",
        "CSIStorageCapacity": "csistoragecapacities",
        "StorageClass": "storageclasses",
        "VolumeAttachment": "volumeattachments",
    },
}
"""Kubernetes' own API groups and the kinds of each a check may read."""
KUBERNETES_GROUPS = frozenset(
    {
        *BUILT_IN,
        "authentication.k8s.io",
        "authorization.k8s.io",
        "certificates.k8s.io",
        "flowcontrol.apiserver.k8s.io",
        "internal.apiserver.k8s.io",
        "rbac.authorization.k8s.io",
        "storagemigration.k8s.io",
    }
)
"""Groups the API server serves itself: their kinds come from `BUILT_IN` only."""
_LABEL = re.compile(r"[a-z]([-a-z0-9]{0,61}[a-z0-9])?")  # DNS-1035
_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+")
_UNPLURALIZED = ("endpoints",)


class ReadError(ValueError):
    """A pair no Role rule may be built from; the message says why."""


def plural(kind: str) -> str:
    """The resource of `kind` as the API server's fallback names it (k8s.io/apimachinery
    `pkg/api/meta/restmapper.go` `UnsafeGuessKindToResource`: lower-cased, `-s` + `es`,
    `-y` -> `ies`, `endpoints` kept), which CRDs and the core kinds gpu-ci reads follow."""
    word = kind.lower()
    if word.endswith(_UNPLURALIZED):
        return word
    if word.endswith("s"):
        return word + "es"
    if word.endswith("y"):
        return word[:-1] + "ies"
    return word + "s"


def read_of(api_version: str, kind: str) -> Read:
    """The resource type of one of gpu-ci's own pairs (`checks.aicr_validators.EXPECTED_KINDS`,
    each of which the tests keep readable): `checked_read`'s, one rule for every read."""
    return checked_read(api_version, kind)


def checked_read(api_version: str, kind: str) -> Read:
    """The one resource type the pair names, or `ReadError` (see the module's rules)."""
    shown = f"{api_version!r} {kind!r}"
    group, slash, version = api_version.rpartition("/")
    if (slash and not group) or not _LABEL.fullmatch(version):
        raise ReadError(
            f"apiVersion {api_version!r} is not GROUP/VERSION or VERSION (a version such as "
            "v1 or v1beta1; no `*` or spaces)"
        )
    if group in KUBERNETES_GROUPS:
        kinds = BUILT_IN.get(group, {})
        if kind == "Secret" and not group:
            raise ReadError("health checks never read Secret objects")
        if kind not in kinds:
            known = ", ".join(sorted(kinds)) or "none"
            raise ReadError(
                f"{shown}: API group {group or 'core'!r} has no kind {kind!r} a check may "
                f"read (known: {known})"
            )
        return Read(group, kinds[kind])
    if not _SUBDOMAIN.fullmatch(group) or len(group) > 253:
        raise ReadError(
            f"{shown}: group {group!r} is neither Kubernetes' nor one a CRD can have (a DNS "
            "name with a dot, no `*` or spaces)"
        )
    if not _LABEL.fullmatch(kind.lower()) or not kind[:1].isupper():
        raise ReadError(
            f"{shown}: kind {kind!r} is not a kind name (a capital letter, then letters, "
            "digits or `-`; no `*`, `/` or spaces)"
        )
    return Read(group, plural(kind))
