"""`gpu-ci:host.versions`: what a host's bootstrap installs, checked before anything runs.

Every field defaults to `components/pins.py`; a stack may override the driver branch, the
container toolkit, nvkind and the tools, and `combination` hands the result to the
compatibility model (`compat.py`).
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Annotated, Self

from pydantic import AfterValidator, Field, field_validator, model_validator

from components.config_base import ConfigModel
from components.host.config.compat import Combination, NvkindCommit
from components.pins import PINS, SHA256_PATTERN

_TOOLKIT = "nvidia-container-toolkit"
_UNSPACE = "remove the spaces or line break around it"
_APT_UPSTREAM = r"[0-9]+\.[0-9]+\.[0-9]+(~[0-9A-Za-z.]+)?"
_APT_VERSION = re.compile(rf"{_APT_UPSTREAM}-[0-9][0-9A-Za-z.+~]*")


def _toolkit_version(value: str) -> str:
    """NVIDIA's apt version: upstream (`1.17.8`, `1.18.0~rc.1`) and package revision (`-1`).

    The container-toolkit step asks apt for `nvidia-container-toolkit=VALUE` (and its three
    sibling packages); a version without the revision plans but no package has it.
    """
    if _APT_VERSION.fullmatch(value):
        return value
    bare = value.removeprefix("v")
    prerelease = re.fullmatch(r"([0-9]+\.[0-9]+\.[0-9]+)-(rc[0-9.]*)(-.+)?", bare)
    if _APT_VERSION.fullmatch(value.strip()):
        fix = _UNSPACE
    elif re.fullmatch(_APT_UPSTREAM, bare):
        fix = f"add the package revision, e.g. {bare}-1"
    elif _APT_VERSION.fullmatch(bare):
        fix = f"drop the leading v (apt versions have none): {bare}"
    elif prerelease:
        fix = f"a pre-release is written with ~, e.g. {prerelease[1]}~{prerelease[2]}-1"
    else:
        fix = "give UPSTREAM-REVISION as apt lists it, e.g. 1.17.8-1 or 1.18.0~rc.1-1"
    raise ValueError(
        f"{value!r} is not an apt version of {_TOOLKIT}: {fix} "
        f"(apt-cache madison {_TOOLKIT} lists them)"
    )


_DRIVER_BRANCH = re.compile(r"([0-9]{3})(-server|-open|-server-open)?")
_OPEN_MODULES_SINCE = 515
"""The first driver branch with NVIDIA's open kernel modules (`nvidia-driver-515-open`)."""


def _driver_branch(value: str) -> str:
    """A branch naming Ubuntu's `nvidia-driver-BRANCH` package, which the driver step installs."""
    match = _DRIVER_BRANCH.fullmatch(value)
    if match is None:
        bare = value.removeprefix("nvidia-driver-")
        version = re.fullmatch(r"([0-9]{3})\.[0-9]+(\.[0-9]+)*", value)
        swapped = re.fullmatch(r"([0-9]{3})-open-server", value)
        if _DRIVER_BRANCH.fullmatch(value.strip()):
            fix = _UNSPACE
        elif bare != value and _DRIVER_BRANCH.fullmatch(bare):
            fix = f"give the branch without the package prefix: {bare}"
        elif version:
            fix = f"give the branch of driver {value}, not the version: e.g. {version[1]}-server"
        elif swapped:
            fix = f"the flavour is written -server-open: {swapped[1]}-server-open"
        else:
            fix = "e.g. 570-server or 580-open"
        raise ValueError(
            f"{value!r} is not an NVIDIA driver branch (BRANCH, BRANCH-server, BRANCH-open or "
            f"BRANCH-server-open, as Ubuntu's nvidia-driver-BRANCH packages are named): {fix} "
            "(apt-cache search --names-only '^nvidia-driver-[0-9]' lists them)"
        )
    branch, flavour = match[1], match[2] or ""
    if "open" in flavour and int(branch) < _OPEN_MODULES_SINCE:
        raise ValueError(
            f"there is no package nvidia-driver-{value}: NVIDIA's open kernel modules start at "
            f"branch {_OPEN_MODULES_SINCE}; use {branch}{flavour.removesuffix('-open')} or a "
            f"branch from {_OPEN_MODULES_SINCE} on"
        )
    return value


def _release_version(value: str) -> str:
    """kind, kubectl and helm versions: the download URLs put the `v` in themselves."""
    release = re.compile(r"[0-9]+\.[0-9]+\.[0-9]+")
    if release.fullmatch(value):
        return value
    bare = value.removeprefix("v").removeprefix("V")
    if bare != value and release.fullmatch(bare):
        raise ValueError(
            f"{value!r}: give the version without the leading v, {bare} (the download URL "
            "adds the v itself)"
        )
    fix = _UNSPACE if release.fullmatch(value.strip()) else "e.g. 0.31.0 (without the v)"
    raise ValueError(f"{value!r} is not a release version MAJOR.MINOR.PATCH: {fix}")


def _nvkind_commit(value: str) -> str:
    if re.fullmatch(r"[0-9a-f]{7,40}", value):
        return value
    if re.fullmatch(r"[0-9A-Fa-f]{7,40}", value.strip()) and value != value.strip():
        fix = _UNSPACE
    elif re.fullmatch(r"[0-9A-Fa-f]{7,40}", value):
        fix = f"write it in lowercase: {value.lower()}"
    else:
        fix = (
            "nvkind has no releases or tags; pin a commit hash of 7 to 40 hex digits, e.g. "
            f"{PINS.nvkind.commit} (`git log --format='%h %cs'` in an nvkind clone lists them "
            "with their dates)"
        )
    raise ValueError(f"{value!r} is not a git commit hash: {fix}")


ToolkitVersion = Annotated[str, AfterValidator(_toolkit_version)]
DriverBranch = Annotated[str, AfterValidator(_driver_branch)]
ReleaseVersion = Annotated[str, AfterValidator(_release_version)]
GitCommit = Annotated[str, AfterValidator(_nvkind_commit)]


# Field descriptions: the config reference, docs/configuration.md (stacks/config/reference.py).
_COMMIT_DATE = "required with `commit`: its date, by which the compatibility rules order commits"
_BINARY_URL = "required with `binarySha256`; a prebuilt nvkind to download instead (https)"
_BINARY_SHA = "required with `binaryUrl`; its SHA-256"
_DRIVER = "the NVIDIA driver branch, installed where no driver is loaded"
_TOOLKIT_VERSION = "the NVIDIA container toolkit (its four packages pinned and held)"
_NVKIND = "nvkind has no releases: a commit or a prebuilt binary"


def _pinned(version: str, tool: str) -> str:
    return f"default: `{version}` (components/pins.py); another {tool} release"


class ToolPin(ConfigModel):
    """Another tool version than the pinned one, with its published SHA-256 for the host's
    `arch`."""

    version: ReleaseVersion = Field(description="the version, X.Y.Z")
    sha256: str = Field(pattern=SHA256_PATTERN, description="its download's SHA-256 for `arch`")


class NvkindConfig(ConfigModel):
    """nvkind has no releases: a commit (built with the pinned Go) or a prebuilt binary.

    `commitDate` orders commits for the compatibility rules; with `binaryUrl` it is the
    date of the commit the binary was built from.
    """

    commit: GitCommit = Field(PINS.nvkind.commit, description="a commit, built with the pinned Go")
    commitDate: dt.date = Field(PINS.nvkind.commit_date, description=_COMMIT_DATE)
    binaryUrl: str | None = Field(None, pattern=r"^https://\S+$", description=_BINARY_URL)
    binarySha256: str | None = Field(None, pattern=SHA256_PATTERN, description=_BINARY_SHA)

    @model_validator(mode="after")
    def _binary_complete(self) -> Self:
        if (self.binaryUrl is None) != (self.binarySha256 is None):
            raise ValueError("binaryUrl and binarySha256 go together (a download is verified)")
        return self

    @model_validator(mode="after")
    def _date_with_commit(self) -> Self:
        if "commit" in self.model_fields_set and "commitDate" not in self.model_fields_set:
            raise ValueError(
                "commitDate is required with commit: the compatibility rules order nvkind "
                "commits by date (see `git show -s --format=%cs COMMIT`)"
            )
        return self

    @field_validator("commitDate")
    @classmethod
    def _not_in_the_future(cls, value: dt.date) -> dt.date:
        # A day's slack for time zones; a later date would exempt an old commit from the
        # date-ordered rules (nvkind-61) and let a known-bad combination plan.
        if value > dt.datetime.now(dt.UTC).date() + dt.timedelta(days=1):
            raise ValueError(
                f"{value} is in the future: give the commit's date "
                "(`git show -s --format=%cs COMMIT` in an nvkind clone); the compatibility "
                "rules order nvkind commits by it"
            )
        return value

    @model_validator(mode="after")
    def _pinned_commit_date(self) -> Self:
        pinned = PINS.nvkind
        same = self.commit.startswith(pinned.commit) or pinned.commit.startswith(self.commit)
        if same and self.commitDate != pinned.commit_date:
            raise ValueError(
                f"commitDate {self.commitDate} is not the date of nvkind commit {self.commit} "
                f"({pinned.commit_date}, as pinned in components/pins.py): the "
                f"compatibility rules order commits by it; give commitDate: {pinned.commit_date}"
            )
        return self


class HostVersions(ConfigModel):
    """What the bootstrap installs; every field defaults to the project's pins."""

    driverBranch: DriverBranch = Field(PINS.driver_branch, description=_DRIVER)
    toolkit: ToolkitVersion = Field(PINS.toolkit_version, description=_TOOLKIT_VERSION)
    nvkind: NvkindConfig = Field(default_factory=NvkindConfig, description=_NVKIND)
    kind: ToolPin | None = Field(None, description=_pinned(PINS.kind.version, "kind"))
    kubectl: ToolPin | None = Field(None, description=_pinned(PINS.kubectl.version, "kubectl"))
    helm: ToolPin | None = Field(None, description=_pinned(PINS.helm.version, "helm"))


def combination(
    versions: HostVersions,
    *,
    cdi: bool,
    gpu_operator_version: str | None = None,
    device_plugin_only: bool = False,
) -> Combination:
    """The compatibility model's input: the host, and what the recipe deploys on its
    cluster when the stack has both (None: no GPU operator here; its rules skip)."""
    return Combination(
        driver_branch=versions.driverBranch,
        toolkit_version=versions.toolkit,
        cdi_enabled=cdi,
        nvkind=NvkindCommit(sha=versions.nvkind.commit, date=versions.nvkind.commitDate),
        gpu_operator_version=gpu_operator_version,
        device_plugin_only=device_plugin_only,
    )
