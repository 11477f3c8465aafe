"""`images-pinned-by-digest` on every workload kind, with an exact digest length."""

from __future__ import annotations

import pytest

from policy.image_digests import TAG_PINNED_REPOSITORIES, WORKLOAD_KINDS, check_image_digest
from policy.pod_specs import containers
from policy.rule import Resource

DIGEST = "sha256:" + "0" * 64
CONFIG = {"tagPinnedRepositories": TAG_PINNED_REPOSITORIES}


def pod(kind: str, image: str) -> Resource:
    spec = {"spec": {"template": {"spec": {"containers": [{"name": "c", "image": image}]}}}}
    return Resource(f"kubernetes:apps/v1:{kind}", "w", spec)


@pytest.mark.parametrize("kind", WORKLOAD_KINDS)
def test_every_workload_kind_is_judged(kind: str) -> None:
    assert kind in {"Pod", "Job", "CronJob", "Deployment", "DaemonSet", "StatefulSet", "ReplicaSet"}
    assert check_image_digest(pod(kind, "nginx:1.27"), CONFIG) == [
        f"w (kubernetes:apps/v1:{kind}): spec.template.spec.containers[0] image 'nginx:1.27' "
        "is not pinned by digest (REPOSITORY@sha256:...)"
    ]
    assert check_image_digest(pod(kind, f"nginx@{DIGEST}"), CONFIG) == []


def test_the_kinds_listed_include_the_four_the_platform_renders() -> None:
    assert {"CronJob", "Deployment", "StatefulSet", "Pod"} <= set(WORKLOAD_KINDS)


@pytest.mark.parametrize(
    "digest", ["sha256:" + "0" * 63, "sha256:" + "0" * 65, "sha256:" + "G" * 64]
)
def test_a_digest_of_the_wrong_length_or_letters_is_no_digest(digest: str) -> None:
    assert len(check_image_digest(pod("Deployment", f"nginx@{digest}"), CONFIG)) == 1


def test_other_types_are_not_judged() -> None:
    assert (
        check_image_digest(
            Resource("kubernetes:v1:ConfigMap", "c", {"containers": [{"image": "x"}]}), CONFIG
        )
        == []
    )
    assert check_image_digest(Resource("oci:Core/instance:Instance", "vm", {}), CONFIG) == []


def test_tag_pinned_repositories_take_an_exact_version_only() -> None:
    ok = pod("Job", "registry.k8s.io/kubectl:v1.33.1")
    assert check_image_digest(ok, CONFIG) == []
    assert len(check_image_digest(ok, {})) == 1
    assert len(check_image_digest(pod("Job", "registry.k8s.io/kubectl:latest"), CONFIG)) == 1
    assert len(check_image_digest(pod("Job", "registry.k8s.io/other:v1.33.1"), CONFIG)) == 1


def test_containers_are_found_with_their_path() -> None:
    spec = {
        "a": [{"initContainers": [{"image": "i"}, "not a container"]}],
        "containers": "not a list",
        "ephemeralContainers": [{"image": "e"}],
    }
    assert [p for p, _ in containers(spec)] == ["a[0].initContainers[0]", "ephemeralContainers[0]"]


def pod_of(*images: object) -> Resource:
    listed = [{"name": f"c{i}", "image": image} for i, image in enumerate(images)]
    return Resource("kubernetes:core/v1:Pod", "p", {"spec": {"containers": listed}})


@pytest.mark.parametrize(
    "first", [f"nvcr.io/nvidia/cuda@{DIGEST}", "registry.k8s.io/kubectl:v1.35.0", "[unknown]", None]
)
def test_a_pinned_or_unknown_container_does_not_end_the_check(first: object) -> None:
    """Each container is judged: one that passes (or is not known yet) is skipped, and the
    next is still checked."""
    (message,) = check_image_digest(pod_of(first, "busybox:latest"), CONFIG)
    assert "spec.containers[1] image 'busybox:latest' is not pinned by digest" in message


def test_an_image_not_known_at_preview_is_not_reported() -> None:
    assert check_image_digest(pod_of("[unknown]"), CONFIG) == []


def test_a_registry_port_is_part_of_the_repository() -> None:
    """`localhost:5000/kubectl:v1.35.0` is repository `localhost:5000/kubectl`, not
    `localhost`: only that repository's version tags count as pinned."""
    config = {"tagPinnedRepositories": ["localhost:5000/kubectl"]}
    assert check_image_digest(pod_of("localhost:5000/kubectl:v1.35.0"), config) == []
    assert check_image_digest(
        pod_of("localhost:5000/kubectl:v1.35.0"), {"tagPinnedRepositories": ["localhost"]}
    )


def test_a_trailing_newline_is_no_digest_and_no_version() -> None:
    """`$` would match before a final newline; the image name would not be the one pinned."""
    assert len(check_image_digest(pod("Job", f"nginx@{DIGEST}\n"), CONFIG)) == 1
    assert len(check_image_digest(pod("Job", "registry.k8s.io/kubectl:v1.33.1\n"), CONFIG)) == 1
