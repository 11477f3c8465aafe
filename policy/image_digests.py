"""`images-pinned-by-digest`: every container image of a rendered workload has a digest.

A tag can be moved to other bytes; a digest cannot. Repositories whose release tags are
immutable (`TAG_PINNED_REPOSITORIES`, the policy config `tagPinnedRepositories`) may use
an exact version tag instead.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from policy.pod_specs import containers
from policy.rule import Resource, known

WORKLOAD_KINDS = ("Pod", "Job", "CronJob", "Deployment", "DaemonSet", "StatefulSet", "ReplicaSet")
DIGEST = re.compile(r"@sha256:[0-9a-f]{64}\Z")  # \Z: `$` would take a trailing newline
VERSION_TAG = re.compile(r":v?\d+(\.\d+){1,3}([-+][0-9A-Za-z.-]+)?\Z")
TAG_PINNED_REPOSITORIES = ["registry.k8s.io/kubectl", "docker.io/alpine/k8s"]


def _is_workload(type_: str) -> bool:
    return type_.startswith("kubernetes:") and type_.rsplit(":", 1)[-1] in WORKLOAD_KINDS


def _repository(image: str) -> str:
    name = image.split("@", 1)[0]
    last = name.rsplit("/", 1)[-1]
    if ":" in last:
        name = name[: len(name) - len(last)] + last.split(":", 1)[0]
    return name


def check_image_digest(resource: Resource, config: Mapping[str, Any]) -> list[str]:
    if not _is_workload(resource.type):
        return []
    tag_pinned = set(config.get("tagPinnedRepositories", []))
    found = []
    for path, container in containers(resource.props):
        image = container.get("image")
        if not isinstance(image, str) or not known(image) or DIGEST.search(image):
            continue
        if _repository(image) in tag_pinned and VERSION_TAG.search(image):
            continue
        found.append(
            f"{resource.where()}: {path} image {image!r} is not pinned by digest "
            "(REPOSITORY@sha256:...)"
        )
    return found
