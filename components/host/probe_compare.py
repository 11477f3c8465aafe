"""Host drift: a host probe's report (`scripts/host-probe.sh`) against the stack's pins.

`pulumi refresh` cannot see what changed on a VM by hand: pulumi-command resources have no
Read (pulumi/pulumi-command#432). The drift job runs the read-only probe over SSH and this
compares its report with what the host layer installs: the driver branch, the toolkit
packages at one version, nvidia as Docker's default runtime (the toolkit-config step), kind
at its pinned version and SHA-256, nvkind built from its pinned commit, and the cluster.
The pins are `components.pins.PINS`, unless the stack overrides them (`gpu-ci:host.versions`,
exported as `host.versions`, which the job passes as flags). Every difference is one line
naming what was found and what was expected; exit 1 when there is any.

    python -m components.host.probe_compare REPORT.json [--host NAME] [--driver-branch B]
        [--toolkit V] [--nvkind COMMIT] [--cluster NAME]
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from components.host.params.bootstrap import ContainerToolkitParams
from components.pins import PINS, Pins
from core import read_json
from core.errors import GpuCiError
from core.read_files import FileRefusedError
from core.read_limits import HOST_PROBE

DEFAULT_RUNTIME = "nvidia"
"""toolkit-config.sh: `nvidia-ctk runtime configure --runtime=docker --set-as-default`."""
DEFAULT_CLUSTER = "gpu-ci"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class DriverReport(_Model):
    version: str | None
    packages: dict[str, str]


class DockerReport(_Model):
    defaultRuntime: str | None


class KindReport(_Model):
    version: str | None
    sha256: str | None


class NvkindReport(_Model):
    identity: str | None
    stampSha256: str | None
    sha256: str | None


class ProbeReport(_Model):
    """What host-probe.sh prints (its last line)."""

    probe: Literal[1]
    arch: str | None
    driver: DriverReport
    toolkit: dict[str, str | None]
    docker: DockerReport
    kind: KindReport
    nvkind: NvkindReport
    clusters: list[str] | None
    errors: list[str]


@dataclass(frozen=True)
class Expected:
    driver_branch: str
    toolkit: str
    toolkit_packages: tuple[str, ...]
    kind_version: str
    kind_sha256: dict[str, str]
    nvkind_commit: str
    cluster: str = DEFAULT_CLUSTER
    runtime: str = DEFAULT_RUNTIME

    @classmethod
    def from_pins(
        cls,
        pins: Pins = PINS,
        *,
        driver_branch: str | None = None,
        toolkit: str | None = None,
        nvkind: str | None = None,
        cluster: str | None = None,
    ) -> Expected:
        """The pins, each overridden by a non-empty value (the drift job passes `""` for a
        version the stack does not set)."""
        return cls(
            driver_branch=driver_branch or pins.driver_branch,
            toolkit=toolkit or pins.toolkit_version,
            toolkit_packages=ContainerToolkitParams().toolkit_packages,
            kind_version=pins.kind.version,
            kind_sha256={str(arch): sha for arch, sha in pins.kind.sha256.items()},
            nvkind_commit=nvkind or pins.nvkind.commit,
            cluster=cluster or DEFAULT_CLUSTER,
        )


@dataclass
class Drift:
    host: str
    differences: list[str] = field(default_factory=list)

    def text(self) -> str:
        if not self.differences:
            return f"host {self.host}: no drift\n"
        lines = [f"host {self.host}: {len(self.differences)} difference(s) from the pins"]
        return "\n".join([*lines, *(f"  - {d}" for d in self.differences)]) + "\n"


def _driver(report: ProbeReport, want: Expected) -> list[str]:
    out = []
    major = want.driver_branch.split("-", 1)[0]
    found = report.driver.version
    if found is not None and found.split(".", 1)[0] != major:
        out.append(f"driver: nvidia-smi reports {found}, the pin is branch {want.driver_branch}")
    package = f"nvidia-driver-{want.driver_branch}"
    if package not in report.driver.packages:
        others = ", ".join(f"{p} {v}" for p, v in sorted(report.driver.packages.items()))
        out.append(f"driver: {package} is not installed (installed: {others or 'none'})")
    return out


def _toolkit(report: ProbeReport, want: Expected) -> list[str]:
    out = []
    for package in want.toolkit_packages:
        found = report.toolkit.get(package)
        if found is None:
            if package in report.toolkit:
                out.append(f"toolkit: {package} is not installed, the pin is {want.toolkit}")
        elif found != want.toolkit:
            out.append(f"toolkit: {package} is {found}, the pin is {want.toolkit}")
    return out


def _tools(report: ProbeReport, want: Expected) -> list[str]:
    out = []
    runtime = report.docker.defaultRuntime
    if runtime is not None and runtime != want.runtime:
        out.append(f"docker: the default runtime is {runtime}, expected {want.runtime}")
    kind = report.kind
    if kind.version is not None and kind.version != f"v{want.kind_version}":
        out.append(f"kind: {kind.version}, the pin is v{want.kind_version}")
    pinned = want.kind_sha256.get(report.arch or "")
    if kind.sha256 is not None and pinned is not None and kind.sha256 != pinned:
        out.append(f"kind: sha256 {kind.sha256}, the pin ({report.arch}) is {pinned}")
    nvkind = report.nvkind
    if nvkind.identity is not None:
        commit = nvkind.identity.split(":")[1] if nvkind.identity.startswith("go:") else ""
        if commit != want.nvkind_commit:
            built = f"commit {commit}" if commit else f"the binary {nvkind.identity[:16]}…"
            out.append(f"nvkind: built from {built}, the pin is commit {want.nvkind_commit}")
    if None not in (nvkind.sha256, nvkind.stampSha256) and nvkind.sha256 != nvkind.stampSha256:
        out.append(
            f"nvkind: the binary's sha256 {nvkind.sha256} is not the {nvkind.stampSha256} "
            "the tools step installed"
        )
    if report.clusters is not None and want.cluster not in report.clusters:
        found = ", ".join(report.clusters) or "none"
        out.append(f"cluster: {want.cluster} is not among kind's clusters (found: {found})")
    return out


def compare(host: str, report: ProbeReport, want: Expected) -> Drift:
    """Every difference between the report and the pins; a reading the probe could not
    take is a difference too (it cannot be shown to match)."""
    found = _driver(report, want) + _toolkit(report, want) + _tools(report, want)
    return Drift(host, [*found, *(f"probe: could not read {e}" for e in report.errors)])


class ProbeReportError(GpuCiError):
    """A report that is not what host-probe.sh prints (one line, naming the file)."""


def load_report(path: Path) -> ProbeReport:
    try:
        data = read_json.read(path, name=str(path), limits=HOST_PROBE)
    except (FileRefusedError, read_json.JsonRefusedError) as err:
        raise ProbeReportError(str(err)) from None
    try:
        return ProbeReport.model_validate(data)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top)"
        raise ProbeReportError(
            f"{path}: not a host-probe.sh report ({where}: {first['msg']}); run "
            "components/host/scripts/host-probe.sh on the host"
        ) from None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m components.host.probe_compare")
    parser.add_argument("report", type=Path, help="host-probe.sh's JSON output")
    parser.add_argument("--host", help="the host's name in the output")
    parser.add_argument("--driver-branch", help=f"default {PINS.driver_branch}")
    parser.add_argument("--toolkit", help=f"default {PINS.toolkit_version}")
    parser.add_argument("--nvkind", help=f"commit; default {PINS.nvkind.commit}")
    parser.add_argument("--cluster", help=f"default {DEFAULT_CLUSTER}")
    args = parser.parse_args(argv)
    try:
        report = load_report(args.report)
    except ProbeReportError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    want = Expected.from_pins(
        driver_branch=args.driver_branch,
        toolkit=args.toolkit,
        nvkind=args.nvkind,
        cluster=args.cluster,
    )
    drift = compare(args.host or str(args.report), report, want)
    sys.stdout.write(drift.text())
    return 1 if drift.differences else 0


if __name__ == "__main__":
    sys.exit(main())
