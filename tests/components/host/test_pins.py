"""The pins: well-formed digests, https URLs that render per architecture."""

from __future__ import annotations

import re

import pytest

from components.pins import PINS, Artifact, UnpinnedArchError

ARTIFACTS = (PINS.kind, PINS.kubectl, PINS.helm, PINS.go, PINS.runner)


@pytest.mark.parametrize("artifact", ARTIFACTS, ids=lambda a: a.name)
def test_every_checksum_is_64_hex(artifact: Artifact) -> None:
    assert artifact.sha256, "a pin needs at least one checksum"
    for digest in artifact.sha256.values():
        assert re.fullmatch(r"[0-9a-f]{64}", digest)
    assert artifact.source


@pytest.mark.parametrize("artifact", ARTIFACTS, ids=lambda a: a.name)
def test_urls_render_for_amd64(artifact: Artifact) -> None:
    url = artifact.url("amd64")
    assert url.startswith("https://")
    assert artifact.version in url
    assert artifact.arch_names.get("amd64", "amd64") in url
    assert "{" not in url


def test_rendered_urls_are_the_published_locations() -> None:
    assert PINS.kind.url("amd64") == (
        "https://github.com/kubernetes-sigs/kind/releases/download/v0.31.0/kind-linux-amd64"
    )
    assert PINS.kubectl.url("arm64") == "https://dl.k8s.io/release/v1.35.0/bin/linux/arm64/kubectl"
    assert PINS.helm.url("amd64") == "https://get.helm.sh/helm-v4.1.4-linux-amd64.tar.gz"
    assert PINS.go.url("amd64") == "https://go.dev/dl/go1.25.5.linux-amd64.tar.gz"
    assert PINS.runner.url("amd64") == (
        "https://github.com/actions/runner/releases/download/v2.337.0/"
        "actions-runner-linux-x64-2.337.0.tar.gz"
    )
    assert PINS.runner.url("arm64") == (
        "https://github.com/actions/runner/releases/download/v2.337.0/"
        "actions-runner-linux-arm64-2.337.0.tar.gz"
    )


def test_runner_pin_is_the_published_release() -> None:
    """actions/runner v2.337.0 release notes: linux-x64 and linux-arm64 digests."""
    assert PINS.runner.version == "2.337.0"
    assert PINS.runner.checksum("amd64") == (
        "70920811a4f8ad4328818682bca5c6469c1c942fab52448868071d0063816613"
    )
    assert PINS.runner.checksum("arm64") == (
        "9b1dc70626422526e3c94767cf024896beb15da5342a3f4819bf2feac13e0393"
    )
    assert "release notes" in PINS.runner.source


def test_digests_are_distinct() -> None:
    digests = [d for a in ARTIFACTS for d in a.sha256.values()]
    assert len(digests) == len(set(digests))


def test_package_names_and_nvkind_commit() -> None:
    assert PINS.driver_package == "nvidia-driver-570-server"
    assert PINS.toolkit_version == "1.17.8-1"
    assert PINS.nvkind.commit == "9a3061c"
    assert PINS.nvkind.commit_date.isoformat() == "2026-04-20"


def test_missing_arch_is_a_clear_error() -> None:
    only_amd64 = PINS.kind.model_copy(update={"sha256": {"amd64": PINS.kind.sha256["amd64"]}})
    with pytest.raises(UnpinnedArchError, match=r"kind 0\.31\.0 has no pinned sha256 for arm64"):
        only_amd64.checksum("arm64")


def test_malformed_checksum_is_rejected() -> None:
    with pytest.raises(ValueError, match="64 lowercase hex"):
        Artifact(
            name="x",
            version="1.0.0",
            url_template="https://example.com/{version}/{arch}",
            sha256={"amd64": "abc"},
            source="test",
        )
