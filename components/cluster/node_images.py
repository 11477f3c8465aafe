"""The node images each kind release published, so a cluster runs one built for its kind.

A stack's `nodeImage` is checked against this table, and completed with the published
digest, before any host exists.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field

from components.cluster.errors import ClusterSpecError
from components.pins import PINS


class KindRelease(BaseModel):
    """The node images one kind release was published with."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    version: str = Field(pattern=r"^[0-9]+\.[0-9]+\.[0-9]+$")
    default: str = Field(description="the Kubernetes version of kind's default node image")
    images: dict[str, str] = Field(
        description="Kubernetes version (vX.Y.Z) -> the image's sha256 digest (64 hex)"
    )
    source: str

    @property
    def minors(self) -> tuple[str, ...]:
        """`1.35`, `1.34`, ...: the Kubernetes minors this release builds images for."""
        return tuple(v.removeprefix("v").rsplit(".", 1)[0] for v in self.images)

    def image(self, kubernetes_version: str) -> str:
        return f"kindest/node:{kubernetes_version}@sha256:{self.images[kubernetes_version]}"


def _release(version: str, source: str, images: dict[str, str]) -> KindRelease:
    return KindRelease(version=version, default=next(iter(images)), images=images, source=source)


KIND_RELEASES: dict[str, KindRelease] = {
    r.version: r
    for r in (
        _release(
            "0.31.0",
            "kind v0.31.0 release notes, 'Images pre-built for this release' (the first is the "
            "default); the v1.35.0 digest is also quoted by many public kind pins",
            {
                "v1.35.0": "452d707d4862f52530247495d180205e029056831160e22870e37e3f6c1ac31f",
                "v1.34.3": "08497ee19eace7b4b5348db5c6a1591d7752b164530a36f855cb0f2bdcbadd48",
                "v1.33.7": "d26ef333bdb2cbe9862a0f7c3803ecc7b4303d8cea8e814b481b09949d353040",
                "v1.32.11": "5fc52d52a7b9574015299724bd68f183702956aa4a2116ae75a63cb574b35af8",
                "v1.31.14": "6f86cf509dbb42767b6e79debc3f2c32e4ee01386f0489b3b2be24b0a55aac2b",
            },
        ),
        _release(
            "0.30.0",
            "kind v0.30.0 release notes, 'Images pre-built for this release'",
            {
                "v1.34.0": "7416a61b42b1662ca6ca89f02028ac133a309a2a30ba309614e8ec94d976dc5a",
                "v1.33.4": "25a6018e48dfcaee478f4a59af81157a437f15e6e140bf103f85a2e7cd0cbbf2",
                "v1.32.8": "abd489f042d2b644e2d033f5c2d900bc707798d075e8186cb65e3f1367a9d5a1",
                "v1.31.12": "0f5cc49c5e73c0c2bb6e2df56e7df189240d83cf94edfa30946482eb08ec57d2",
            },
        ),
        _release(
            "0.29.0",
            "kind v0.29.0 release notes, 'Images pre-built for this release' (the Kubeflow GPU "
            "e2e's kindest/node:v1.33.1 is this release's default)",
            {
                "v1.33.1": "050072256b9a903bd914c0b2866828150cb229cea0efe5892e2b644d5dd3b34f",
                "v1.32.5": "e3b2327e3a5ab8c76f5ece68936e4cafaa82edf58486b769727ab0b3b97a5b0d",
                "v1.31.9": "b94a3a6c06198d17f59cca8c6f486236fa05e2fb359cbd75dabbfc348a10b211",
                "v1.30.13": "397209b3d947d154f6641f2d0ce8d473732bd91c87d9575ade99049aa33cd648",
            },
        ),
    )
}
"""kind release -> the node images published with it. kind's release notes: "You _must_ use
the @sha256 digest to guarantee an image built for this release"."""

NODE_IMAGE_PATTERN = re.compile(
    r"^kindest/node:(?P<version>v(?P<major>0|[1-9][0-9]*)\.(?P<minor>0|[1-9][0-9]*)"
    r"\.(?:0|[1-9][0-9]*))(?:@(?P<digest>sha256:[0-9a-f]{64}))?$"
)


def kind_release(kind_version: str) -> KindRelease:
    """The node-image table of `kind_version` (`0.31.0`, with or without a leading v)."""
    version = kind_version.removeprefix("v")
    try:
        return KIND_RELEASES[version]
    except KeyError:
        raise ClusterSpecError(
            f"kindVersion {kind_version!r}: no node images are recorded for this kind "
            f"release (known: {', '.join(sorted(KIND_RELEASES))}); add its release notes' "
            "'Images pre-built for this release' to KIND_RELEASES in "
            "components/cluster/node_images.py"
        ) from None


def default_node_image(kind_version: str = PINS.kind.version) -> str:
    """kind's default node image for `kind_version`, pinned by digest."""
    release = kind_release(kind_version)
    return release.image(release.default)


def check_node_image(
    node_image: str, kind_version: str = PINS.kind.version, *, require_published: bool = False
) -> str:
    """`node_image` pinned by digest when its tag is one `kind_version` published.

    Fails when the image is not `kindest/node:vX.Y.Z[@sha256:...]`, when its Kubernetes
    minor is not one `kind_version` builds images for, or when its digest differs from
    the published one. With `require_published` (a stack's config), a tag without a
    digest must be one a kind release in KIND_RELEASES published: another would fail the
    pull at apply, after the whole host bootstrap.
    """
    release = kind_release(kind_version)
    match = NODE_IMAGE_PATTERN.fullmatch(node_image)
    if match is None:
        raise ClusterSpecError(
            f"nodeImage {node_image!r} is not kindest/node:vX.Y.Z[@sha256:<64 hex>]; use "
            f"e.g. {default_node_image(kind_version)!r} (kind v{release.version}'s default)"
        )
    version, digest = match["version"], match["digest"]
    minor = f"{match['major']}.{match['minor']}"
    if minor not in release.minors:
        supported = ", ".join(f"kindest/node:{v}" for v in release.images)
        raise ClusterSpecError(
            f"nodeImage {node_image!r} is Kubernetes {minor}, which the pinned kind "
            f"v{release.version} publishes no node image for; use one of {supported} "
            "(with its digest), or pin a kind release that supports it"
        )
    if version not in release.images:
        known = any(version in other.images for other in KIND_RELEASES.values())
        if require_published and digest is None and not known:
            same = [v for v in release.images if v.rsplit(".", 1)[0] == f"v{minor}"]
            raise ClusterSpecError(
                f"nodeImage {node_image!r}: no kind release publishes {version}, so the "
                f"pull would fail; use {release.image(same[0])!r} (kind v{release.version}'s "
                f"Kubernetes {minor}), or pin an image you built by its digest "
                f"(kindest/node:{version}@sha256:<64 hex>)"
            )
        return node_image
    pinned = release.image(version)
    published = f"sha256:{release.images[version]}"
    if digest is not None and digest != published:
        raise ClusterSpecError(
            f"nodeImage {node_image!r}: kind v{release.version} published {version} as "
            f"{published}; use {pinned!r} (another digest is an image built for a different "
            "kind release)"
        )
    return pinned
