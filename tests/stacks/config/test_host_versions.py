"""`gpu-ci:host.versions`: values that would plan but cannot install are refused with the fix.

The container-toolkit step asks apt for `nvidia-container-toolkit=VERSION` (and three
sibling packages), the driver step for `nvidia-driver-BRANCH`, the tools step downloads
from URLs that put the `v` in front of the version, and the compatibility rules order
nvkind commits by `commitDate`.
"""

from __future__ import annotations

from typing import Any

import pytest

from components.host.chain import host_pins
from components.host.params.bootstrap import ContainerToolkitParams
from components.pins import PINS
from stacks.config import ConfigError, StackConfig, load_config, raw_from_flat
from tests.stacks.stack_helpers import flat

DIGEST = "ab" * 32


def load(versions: dict[str, Any]) -> StackConfig:
    values = {"gpu-ci:capacity": "none", "gpu-ci:host": {"target": "local", "versions": versions}}
    return load_config(raw_from_flat(flat(values), set()), "test")


def problem(versions: dict[str, Any]) -> str:
    with pytest.raises(ConfigError) as caught:
        load(versions)
    found = [str(p) for p in caught.value.problems]
    assert len(found) == 1, found
    return found[0]


# -- toolkit: an apt version, upstream plus the package revision --------------------------


def test_a_toolkit_version_without_the_package_revision_is_refused_with_the_fix() -> None:
    assert problem({"toolkit": "1.19.1"}) == (
        "gpu-ci:host.versions.toolkit: '1.19.1' is not an apt version of "
        "nvidia-container-toolkit: add the package revision, e.g. 1.19.1-1 (apt-cache madison "
        "nvidia-container-toolkit lists them) [given: '1.19.1']"
    )


@pytest.mark.parametrize(
    ("given", "fix"),
    [
        ("v1.19.1-1", "drop the leading v (apt versions have none): 1.19.1-1"),
        ("v1.19.1", "add the package revision, e.g. 1.19.1-1"),
        ("1.18.0-rc.1-1", "a pre-release is written with ~, e.g. 1.18.0~rc.1-1"),
        ("latest", "give UPSTREAM-REVISION as apt lists it, e.g. 1.17.8-1 or 1.18.0~rc.1-1"),
        ("1.19.1-1\n", "remove the spaces or line break around it"),
        (" 1.19.1-1", "remove the spaces or line break around it"),
        ("1.19-1", "give UPSTREAM-REVISION as apt lists it"),
    ],
)
def test_other_toolkit_versions_apt_has_not_are_refused_with_the_fix(given: str, fix: str) -> None:
    found = problem({"toolkit": given})
    assert found.startswith(
        f"gpu-ci:host.versions.toolkit: {given!r} is not an apt version of "
        f"nvidia-container-toolkit: {fix}"
    ), found
    assert "apt-cache madison nvidia-container-toolkit" in found


@pytest.mark.parametrize("version", ["1.17.8-1", "1.19.1-1", "1.19.0~rc.1-1", "1.20.0-1ubuntu1"])
def test_apt_versions_load_and_reach_the_install_step_unchanged(version: str) -> None:
    host = load({"toolkit": version}).host
    assert host is not None and host.versions.toolkit == version
    assert ContainerToolkitParams(toolkit_version=version).toolkit_version == version


def test_the_pinned_toolkit_is_an_apt_version() -> None:
    host = load({}).host
    assert host is not None and host.versions.toolkit == PINS.toolkit_version


# -- driverBranch: names Ubuntu's nvidia-driver-BRANCH package ------------------------------


@pytest.mark.parametrize(
    "branch", ["535", "570-server", "580-open", "570-server-open", "515-open", "470-server"]
)
def test_driver_branches_with_a_package_load(branch: str) -> None:
    host = load({"driverBranch": branch}).host
    assert host is not None
    assert host_pins(host.versions).driver_package == f"nvidia-driver-{branch}"


@pytest.mark.parametrize(
    ("given", "fix"),
    [
        ("570.86", "give the branch of driver 570.86, not the version: e.g. 570-server"),
        ("570.86.15", "give the branch of driver 570.86.15, not the version: e.g. 570-server"),
        ("nvidia-driver-570-server", "give the branch without the package prefix: 570-server"),
        ("570-open-server", "the flavour is written -server-open: 570-server-open"),
        ("latest", "e.g. 570-server or 580-open"),
    ],
)
def test_what_is_no_driver_branch_is_refused_with_the_fix(given: str, fix: str) -> None:
    assert problem({"driverBranch": given}) == (
        f"gpu-ci:host.versions.driverBranch: {given!r} is not an NVIDIA driver branch (BRANCH, "
        "BRANCH-server, BRANCH-open or BRANCH-server-open, as Ubuntu's nvidia-driver-BRANCH "
        f"packages are named): {fix} (apt-cache search --names-only '^nvidia-driver-[0-9]' "
        f"lists them) [given: {given!r}]"
    )


@pytest.mark.parametrize(
    ("given", "closed"), [("470-open", "470"), ("470-server-open", "470-server")]
)
def test_open_modules_before_branch_515_are_refused(given: str, closed: str) -> None:
    assert problem({"driverBranch": given}) == (
        f"gpu-ci:host.versions.driverBranch: there is no package nvidia-driver-{given}: "
        f"NVIDIA's open kernel modules start at branch 515; use {closed} or a branch from 515 "
        f"on [given: {given!r}]"
    )


# -- kind, kubectl, helm: the download URLs add the `v` ----------------------------------


@pytest.mark.parametrize(
    ("tool", "version"), [("kind", "v0.31.0"), ("kubectl", "v1.35.0"), ("helm", "V4.1.4")]
)
def test_a_v_prefixed_tool_version_is_refused_before_it_doubles_in_the_url(
    tool: str, version: str
) -> None:
    bare = version[1:]
    assert problem({tool: {"version": version, "sha256": DIGEST}}) == (
        f"gpu-ci:host.versions.{tool}.version: {version!r}: give the version without the "
        f"leading v, {bare} (the download URL adds the v itself) [given: {version!r}]"
    )


@pytest.mark.parametrize(
    ("version", "fix"),
    [
        ("0.31", "e.g. 0.31.0 (without the v)"),
        ("latest", "e.g. 0.31.0 (without the v)"),
        ("0.31.0-rc.1", "e.g. 0.31.0 (without the v)"),
        ("0.31.0\n", "remove the spaces or line break around it"),
    ],
)
def test_a_tool_version_that_is_no_release_is_refused(version: str, fix: str) -> None:
    assert problem({"kind": {"version": version, "sha256": DIGEST}}) == (
        f"gpu-ci:host.versions.kind.version: {version!r} is not a release version "
        f"MAJOR.MINOR.PATCH: {fix} [given: {version!r}]"
    )


@pytest.mark.parametrize(
    ("tool", "url"),
    [
        (
            "kind",
            "https://github.com/kubernetes-sigs/kind/releases/download/v0.32.0/kind-linux-amd64",
        ),
        ("kubectl", "https://dl.k8s.io/release/v0.32.0/bin/linux/amd64/kubectl"),
        ("helm", "https://get.helm.sh/helm-v0.32.0-linux-amd64.tar.gz"),
    ],
)
def test_a_tool_version_override_gives_one_v_in_the_url(tool: str, url: str) -> None:
    host = load({tool: {"version": "0.32.0", "sha256": DIGEST}}).host
    assert host is not None
    assert getattr(host_pins(host.versions), tool).url("amd64") == url


# -- nvkind: a commit hash and its date --------------------------------------------------


def test_an_uppercase_commit_is_refused_with_its_lowercase() -> None:
    assert problem({"nvkind": {"commit": "9A3061C", "commitDate": "2026-04-20"}}) == (
        "gpu-ci:host.versions.nvkind.commit: '9A3061C' is not a git commit hash: write it in "
        "lowercase: 9a3061c [given: '9A3061C']"
    )


@pytest.mark.parametrize("commit", ["main", "v0.1.0", "9a306", "g9a3061c", "a" * 41])
def test_what_is_no_commit_hash_is_refused(commit: str) -> None:
    found = problem({"nvkind": {"commit": commit, "commitDate": "2026-04-20"}})
    assert found.startswith(
        f"gpu-ci:host.versions.nvkind.commit: {commit!r} is not a git commit hash: nvkind has "
        "no releases or tags; pin a commit hash of 7 to 40 hex digits, e.g. 9a3061c"
    ), found


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("driverBranch", "570-server\n"),
        ("toolkit", "1.17.8-1\n"),
        ("nvkind", {"commit": "9a3061c\n", "commitDate": "2026-04-20"}),
        ("kubectl", {"version": " 1.35.0", "sha256": DIGEST}),
    ],
)
def test_a_valid_value_with_a_stray_line_break_is_told_so(key: str, value: Any) -> None:
    assert "remove the spaces or line break around it" in problem({key: value})


def test_a_commit_date_in_the_future_is_refused() -> None:
    found = problem({"nvkind": {"commit": "5bb2ef1", "commitDate": "2099-01-01"}})
    assert found == (
        "gpu-ci:host.versions.nvkind.commitDate: 2099-01-01 is in the future: give the "
        "commit's date (`git show -s --format=%cs COMMIT` in an nvkind clone); the "
        "compatibility rules order nvkind commits by it [given: '2099-01-01']"
    )


@pytest.mark.parametrize(
    "nvkind", [{"commitDate": "2026-05-01"}, {"commit": "9a3061c", "commitDate": "2026-01-01"}]
)
def test_the_pinned_commit_keeps_its_date(nvkind: dict[str, str]) -> None:
    found = problem({"nvkind": nvkind})
    assert found.startswith(
        f"gpu-ci:host.versions.nvkind: commitDate {nvkind['commitDate']} is not the date of "
        "nvkind commit 9a3061c (2026-04-20, as pinned in components/pins.py): the "
        "compatibility rules order commits by it; give commitDate: 2026-04-20"
    ), found


def test_another_commit_with_a_past_date_loads() -> None:
    host = load({"nvkind": {"commit": "b7c1d2e", "commitDate": "2026-07-01"}}).host
    assert host is not None and host.versions.nvkind.commit == "b7c1d2e"
    full = PINS.nvkind.commit + "0" * 33
    pinned = load({"nvkind": {"commit": full, "commitDate": "2026-04-20"}}).host
    assert pinned is not None and pinned.versions.nvkind.commit == full
