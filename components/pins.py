"""Every version gpu-ci installs or runs (host tools, charts, images), in one typed place.

Checksums are the SHA-256 values the projects publish (release `.sha256`/`.sha256sum`
files and go.dev/dl); each entry cites where it was read. Nothing here is computed
locally, and a pin without a published checksum for an architecture simply has none
(the tools step then refuses that architecture instead of installing unverified bytes).
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from core.errors import GpuCiError

Arch = Literal["amd64", "arm64"]

SHA256_PATTERN = r"^[0-9a-f]{64}$"


class UnpinnedArchError(GpuCiError):
    """A tool has no published checksum pinned for the requested architecture."""


class Artifact(BaseModel):
    """A downloadable file: version, URL template and per-architecture SHA-256."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    version: str = Field(pattern=r"^[0-9]+\.[0-9]+\.[0-9]+$")
    url_template: str = Field(description="`{version}` and `{arch}` are substituted")
    sha256: dict[Arch, str]
    source: str = Field(description="where the checksums were read")
    arch_names: dict[Arch, str] = Field(
        default_factory=dict,
        description="the project's own name for an architecture in URLs (`amd64` -> `x64`)",
    )

    @field_validator("sha256")
    @classmethod
    def _hex_digests(cls, value: dict[Arch, str]) -> dict[Arch, str]:
        for arch, digest in value.items():
            if not re.fullmatch(SHA256_PATTERN, digest):
                raise ValueError(f"sha256 for {arch} is not 64 lowercase hex characters")
        return value

    @field_validator("url_template")
    @classmethod
    def _https(cls, value: str) -> str:
        if not value.startswith("https://"):
            raise ValueError("downloads must use https")
        return value

    def url(self, arch: Arch) -> str:
        return self.url_template.format(version=self.version, arch=self.arch_names.get(arch, arch))

    def checksum(self, arch: Arch) -> str:
        try:
            return self.sha256[arch]
        except KeyError:
            raise UnpinnedArchError(
                f"{self.name} {self.version} has no pinned sha256 for {arch}; "
                f"pinned: {', '.join(sorted(self.sha256))}"
            ) from None


class NvkindPin(BaseModel):
    """nvkind has no releases or tags: a commit, plus its date so rules can order it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    module: str = "github.com/NVIDIA/nvkind/cmd/nvkind"
    commit: str = Field(pattern=r"^[0-9a-f]{7,40}$")
    commit_date: dt.date


class Pins(BaseModel):
    """The versions one host bootstrap installs."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    driver_branch: str = Field(pattern=r"^[0-9]{3}(-server|-open|-server-open)?$")
    toolkit_version: str = Field(pattern=r"^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.~+]+)?$")
    kind: Artifact
    kubectl: Artifact
    helm: Artifact
    go: Artifact
    nvkind: NvkindPin
    runner: Artifact

    @property
    def driver_package(self) -> str:
        """Ubuntu's package for the branch, e.g. `nvidia-driver-570-server`."""
        return f"nvidia-driver-{self.driver_branch}"


PINS = Pins(
    # The ARC GPU image's branch (FIELD-NOTES §2); the data-center (-server) flavour.
    driver_branch="570-server",
    # The Kubeflow bootstrap's pin (FIELD-NOTES §1), before the toolkit 1.18 JIT-CDI
    # default that breaks nvkind older than 9a3061c (see compat.py).
    toolkit_version="1.17.8-1",
    kind=Artifact(
        name="kind",
        version="0.31.0",
        url_template=(
            "https://github.com/kubernetes-sigs/kind/releases/download/v{version}/kind-linux-{arch}"
        ),
        sha256={
            "amd64": "eb244cbafcc157dff60cf68693c14c9a75c4e6e6fedaf9cd71c58117cb93e3fa",
            "arm64": "8e1014e87c34901cc422a1445866835d1e666f2a61301c27e722bdeab5a1f7e4",
        },
        source=(
            "kind v0.31.0 release kind-linux-{amd64,arm64}.sha256sum, quoted identically in "
            "several public pinned installers (e.g. harvester addons Dockerfile "
            "KIND_SHA256_Linux_{amd64,arm64}); nvkind's GPU CI uses kind v0.31.0"
        ),
    ),
    kubectl=Artifact(
        name="kubectl",
        version="1.35.0",
        url_template="https://dl.k8s.io/release/v{version}/bin/linux/{arch}/kubectl",
        sha256={
            "amd64": "a2e984a18a0c063279d692533031c1eff93a262afcc0afdc517375432d060989",
            "arm64": "58f82f9fe796c375c5c4b8439850b0f3f4d401a52434052f2df46035a8789e25",
        },
        source=(
            "dl.k8s.io/release/v1.35.0/bin/linux/{amd64,arm64}/kubectl.sha256, quoted "
            "identically in several public Dockerfiles (KUBECTL_SHA256_AMD64/ARM64) and "
            "Bazel http_file pins"
        ),
    ),
    helm=Artifact(
        name="helm",
        version="4.1.4",
        url_template="https://get.helm.sh/helm-v{version}-linux-{arch}.tar.gz",
        sha256={
            "amd64": "70b2c30a19da4db264dfd68c8a3664e05093a361cefd89572ffb36f8abfa3d09",
            "arm64": "13d03672be289045d2ff00e4e345d61de1c6f21c1257a45955a30e8ae036d8f1",
        },
        source=(
            "Helm v4.1.4 release notes (get.helm.sh/helm-v4.1.4-linux-amd64.tar.gz.sha256sum), "
            "also quoted in public Makefiles/Dockerfiles as HELM_SUM_amd64/arm64"
        ),
    ),
    go=Artifact(
        name="go",
        version="1.25.5",
        url_template="https://go.dev/dl/go{version}.linux-{arch}.tar.gz",
        sha256={
            "amd64": "9e9b755d63b36acf30c12a9a3fc379243714c1c6d3dd72861da637f336ebb35b",
            "arm64": "b00b694903d126c588c378e72d3545549935d3982635ba3f7a964c9fa23fe3b9",
        },
        source=(
            "go.dev/dl checksums for go1.25.5, as pinned in a public Homebrew-style Go "
            "formula and in cashapp/hermit-packages (linux-amd64)"
        ),
    ),
    # FIELD-NOTES §3: 9a3061c (2026-04-20) detects JIT-CDI and skips the umount that
    # fails with toolkit >= 1.18 (nvkind#61). Go resolves the abbreviated hash.
    nvkind=NvkindPin(commit="9a3061c", commit_date=dt.date(2026, 4, 20)),
    # The GitHub Actions runner (self-hosted runner steps). GitHub names amd64 `x64`.
    runner=Artifact(
        name="actions-runner",
        version="2.337.0",
        url_template=(
            "https://github.com/actions/runner/releases/download/v{version}/"
            "actions-runner-linux-{arch}-{version}.tar.gz"
        ),
        arch_names={"amd64": "x64", "arm64": "arm64"},
        sha256={
            "amd64": "70920811a4f8ad4328818682bca5c6469c1c942fab52448868071d0063816613",
            "arm64": "9b1dc70626422526e3c94767cf024896beb15da5342a3f4819bf2feac13e0393",
        },
        source=(
            "actions/runner v2.337.0 release notes (2026-08-26), `<!-- BEGIN SHA linux-x64 -->` "
            "and `<!-- BEGIN SHA linux-arm64 -->`; the same pair is quoted in many public "
            "installers and Dockerfiles pinning v2.337.0 (RUNNER_SHA256 / "
            "ACTIONS_RUNNER_SHA256_LINUX_X64 / _ARM64)"
        ),
    ),
)


class ArcPins(BaseModel):
    """The Actions Runner Controller's charts and the image of its failed-runner cleanup."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    charts: str = Field(pattern=r"^oci://[a-z0-9./-]+$", description="where both charts are")
    chart_version: str = Field(pattern=r"^[0-9]+\.[0-9]+\.[0-9]+$")
    cleanup_image: str = Field(pattern=r"^[a-z0-9][a-z0-9._/-]*:[A-Za-z0-9_][A-Za-z0-9._-]*$")

    @property
    def controller_chart(self) -> str:
        return f"{self.charts}/gha-runner-scale-set-controller"

    @property
    def scale_set_chart(self) -> str:
        return f"{self.charts}/gha-runner-scale-set"


ARC_PINS = ArcPins(
    # Where both ARC charts are published (FIELD-NOTES §2).
    charts="oci://ghcr.io/actions/actions-runner-controller-charts",
    # gha-runner-scale-set(-controller) 0.14.2: the newest release (Chart.yaml of
    # actions/actions-runner-controller @ 2ee6b3b8, 2026-06-30; FIELD-NOTES §2 "latest 0.14.2").
    chart_version="0.14.2",
    # kubectl plus a POSIX shell (the distroless registry.k8s.io/kubectl has no shell to filter
    # EphemeralRunners by phase). Pinned by tag; no digest could be confirmed offline.
    cleanup_image="docker.io/alpine/k8s:1.33.3",
)


class CheckPins(BaseModel):
    """The images of the platform's deployment-check Jobs."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    cuda_image: str = Field(
        pattern=r"^[a-z0-9][a-z0-9._/-]*:[A-Za-z0-9_][A-Za-z0-9._-]*@sha256:[0-9a-f]{64}$",
        description="the GPU smoke Job's image, by digest",
    )
    chainsaw_image: str = Field(
        pattern=r"^[a-z0-9][a-z0-9._/-]*:[A-Za-z0-9_][A-Za-z0-9._-]*@sha256:[0-9a-f]{64}$",
        description="the Chainsaw checks' image (kyverno/chainsaw), by digest",
    )
    chainsaw_version: str = Field(
        pattern=r"^v[0-9]+\.[0-9]+\.[0-9]+$",
        description="its release, whose `test` CLI and Test schema the checks are written for",
    )
    torch_image: str = Field(
        pattern=r"^[a-z0-9][a-z0-9._/-]*:[A-Za-z0-9_][A-Za-z0-9._-]*@sha256:[0-9a-f]{64}$",
        description="PyTorch with CUDA and NCCL, by digest: the NCCL check and the multi-GPU "
        "TrainJob (examples/multi-gpu)",
    )


CHECK_PINS = CheckPins(
    # CUDA 12.8 is the newest the hosts' nvidia-driver-570-server supports; nvidia-smi itself
    # comes from the host driver. The manifest-list digest was taken from several unrelated
    # public repositories that record it for this tag (amd64 manifest sha256:e711c993...); it
    # was not re-resolved against Docker Hub from here.
    cuda_image=(
        "nvidia/cuda:12.8.1-base-ubuntu24.04"
        "@sha256:133c78a0575303be34164d0b90137a042172bdf60696af01a3c424ab402d86e2"
    ),
    # kyverno/chainsaw v0.2.15 (release notes `.release-notes/v0.2.15.md`: `--quiet` prints the
    # summary), built by ko with the chainsaw binary as entrypoint (`.goreleaser.yaml` kos).
    # The multi-arch digest is the one public repositories record for this tag, e.g. the
    # Renovate-managed CloudNativePG postgres-extensions-containers dagger module
    # (`dagger/maintenance`, "ghcr.io/kyverno/chainsaw:v0.2.15@sha256:527f3be2...") and two
    # public e2e scripts; it was not re-resolved against ghcr.io from here.
    chainsaw_image=(
        "ghcr.io/kyverno/chainsaw:v0.2.15"
        "@sha256:527f3be2b9ec0580cb0bc84540a0fee99406b011c24ae3a30953e525af60809d"
    ),
    chainsaw_version="v0.2.15",
    # PyTorch 2.11.0 built for CUDA 12.8 (the newest the hosts' driver 570 runs; the Trainer
    # 2.3.0 runtimes' own default image is a CUDA 13.0 build, which needs driver 580). The
    # multi-arch digest is the one NVIDIA AICR's container image inventory lists for the
    # kubeflow-trainer 2.2.0 chart's torch runtime (NVIDIA/aicr docs, "Container Image
    # Inventory", generated by `make bom-docs`), and that unrelated public repositories
    # record for the same tag (e.g. hail-is/hail's batch test of NVIDIA driver access);
    # it was not re-resolved against Docker Hub from here.
    torch_image=(
        "pytorch/pytorch:2.11.0-cuda12.8-cudnn9-runtime"
        "@sha256:eee11b3b3872a8c838e35ef48f08b2d5def2080902c7f666831310ca1a0ef2be"
    ),
)


class ObservabilityPins(BaseModel):
    """The Prometheus and Grafana gpu-ci deploys where the recipe has none."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    repository: str = Field(pattern=r"^https://[a-z0-9./-]+$")
    chart: str = Field(pattern=r"^[a-z0-9-]+$")
    chart_version: str = Field(pattern=r"^[0-9]+\.[0-9]+\.[0-9]+$")


OBSERVABILITY_PINS = ObservabilityPins(
    # kube-prometheus-stack 84.4.0: the version AICR's own registry pins (aicr main,
    # 2026-07-09: shared/upstream/aicr-main-2026-07-09/recipes/registry.yaml), so a stack whose
    # recipe layers AICR's catalog and one that gets gpu-ci's run the same Prometheus.
    repository="https://prometheus-community.github.io/helm-charts",
    chart="kube-prometheus-stack",
    chart_version="84.4.0",
)


class QueueExporterPins(BaseModel):
    """The image that runs the queue-time exporter's stdlib-only program (a ConfigMap)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    python_image: str = Field(
        pattern=r"^[a-z0-9][a-z0-9._/-]*:[A-Za-z0-9_][A-Za-z0-9._-]*@sha256:[0-9a-f]{64}$",
        description="Python 3.13 with the `openssl` CLI (the App JWT's RS256 signature), by digest",
    )


QUEUE_EXPORTER_PINS = QueueExporterPins(
    # The Docker Official Image python:3.13-slim-bookworm, from ECR Public's mirror of the
    # official images (public.ecr.aws/docker/library). Its Dockerfile (docker-library/python
    # @ 00bfe6f2 `3.13/slim-bookworm/Dockerfile`) installs `ca-certificates`, which Debian
    # bookworm's package makes depend on `openssl` (Depends: openssl (>= 1.1.1)): the CLI the
    # exporter signs its App JWT with. The digest is the one several unrelated public
    # repositories pin for this reference (CI checkers' allow-lists of canonical base images
    # and task Dockerfiles, `FROM public.ecr.aws/docker/library/python:3.13-slim-bookworm
    # @sha256:01f42367...`); it was not re-resolved against the registry from here.
    python_image=(
        "public.ecr.aws/docker/library/python:3.13-slim-bookworm"
        "@sha256:01f42367a0a94ad4bc17111776fd66e3500c1d87c15bbd6055b7371d39c124fb"
    ),
)
