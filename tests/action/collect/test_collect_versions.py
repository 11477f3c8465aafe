"""collect_versions: each pinned version against what the host and the cluster say they run.

The tools answer from collect_sandbox's stand-ins, asked by collect_run in this process
(collect_in_process.py), so collect_versions' mutants run here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ..action_sandbox import ActionSandbox
from .collect_in_process import InProcess, in_process
from .collect_modules import module
from .collect_sandbox import STUB

versions_mod = module("collect_versions")
PINS = {
    "kind": "0.31.0",
    "kubectl": "1.35.0",
    "helm": "4.1.5",
    "go": "1.25.5",
    "nvkind": "9a3061c0ffee",
    "toolkit": "1.17.8-1",
    "driver": "570-server",
    "chainsaw image": "ghcr.io/kyverno/chainsaw:v0.2.15@sha256:" + "a" * 64,
    "cuda image": "nvidia/cuda:12.8.1-base@sha256:" + "b" * 64,
    "torch image": "pytorch/pytorch:2.11.0@sha256:" + "c" * 64,
    "chart kube-prometheus-stack": "84.4.0",
}
BINARIES = {"kind": "kind", "kubectl": "kubectl", "helm": "helm"}


@pytest.fixture
def stands(runner: ActionSandbox, monkeypatch: pytest.MonkeyPatch) -> InProcess:
    return in_process(runner, monkeypatch)


def tools_answer(stands: InProcess) -> None:
    stands.rig.answer("kind version", "kind v0.31.0 go1.25.5 linux/amd64\n")
    stands.rig.answer("kubectl version --client", "Client Version: v1.35.0\nKustomize: v5.7.1\n")
    stands.rig.answer("helm version --short", "v4.1.4+g05fa379\n")


def stamps(folder: Path, **identities: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for tool, identity in identities.items():
        (folder / tool).write_text(f"{identity} {'f' * 64}\n")
    return folder


def test_the_tools_rows_compare_the_plan_else_the_pin_with_what_they_say(
    stands: InProcess, tmp_path: Path
) -> None:
    tools_answer(stands)
    ran = stands.runner()
    versions = versions_mod.Versions(ran, {**PINS, "go": 1}, {"kubectl": "1.34.0"})
    statedir = stamps(tmp_path / "state", nvkind="go:9a3061c", go="1.25.5", kind="0.31.0")
    versions.tools(BINARIES, statedir)
    assert versions.rows == [
        ("kind", "0.31.0", "-", "0.31.0", "ok"),
        ("kubectl", "1.35.0", "1.34.0", "1.35.0", "DIFFERS"),  # the plan's wins
        ("helm", "4.1.5", "-", "4.1.4", "DIFFERS"),
        ("nvkind", "9a3061c0ffee", "-", "9a3061c", "ok"),  # its stamp names its commit
    ]
    assert versions.pins["go"] == "1"  # every pin as text
    assert stands.calls() == [
        "kind version",
        "kubectl version --client",
        "helm version --short",
    ]
    assert [(r.name, r.status) for r in ran.records] == [
        ("version: kind", "ok"),
        ("version: kubectl", "ok"),
        ("version: helm", "ok"),
    ]
    assert versions.differs() == [
        "kubectl (expected 1.34.0, installed 1.35.0)",
        "helm (expected 4.1.5, installed 4.1.4)",
    ]


def test_a_tool_that_says_nothing_or_has_no_stamp_is_unknown(
    stands: InProcess, tmp_path: Path
) -> None:
    stands.rig.answer("kind version", "kind version unknown\n")
    stands.rig.fail("kubectl", "kubectl: not found")
    stands.rig.answer("helm version --short", "v4.1.4\n")
    versions = versions_mod.Versions(stands.runner(), PINS, {"helm": "4.1.4"})
    statedir = stamps(tmp_path / "state", nvkind="sha256:" + "9" * 64)  # a binary's, no commit
    (statedir / "kind").mkdir()  # not a file
    versions.tools(BINARIES, statedir)
    assert versions.rows == [
        ("kind", "0.31.0", "-", "?", "?"),
        ("kubectl", "1.35.0", "-", "?", "?"),
        ("helm", "4.1.5", "4.1.4", "4.1.4", "ok"),
        ("nvkind", "9a3061c0ffee", "-", "?", "?"),
    ]
    versions = versions_mod.Versions(stands.runner(), {}, {})
    versions.tools(BINARIES, None)
    assert versions.rows[-1] == ("nvkind", "-", "-", "?", "?")
    assert versions.rows[2] == ("helm", "-", "-", "4.1.4", "?")  # nothing to expect


def test_a_version_is_the_first_semver_and_a_stamp_its_first_word(
    stands: InProcess, tmp_path: Path
) -> None:
    stands.rig.answer("kind version", "kind 1.2 then v0.31.0 and 0.32.0\n")
    stands.rig.answer("kubectl version --client", "v1.35.0\n")
    stands.rig.answer("helm version --short", "v4.1.5\n")
    statedir = stamps(tmp_path / "s", nvkind="go:9a3061c:extra")
    versions = versions_mod.Versions(stands.runner(), PINS, {"nvkind": "9a3061c"})
    versions.tools(BINARIES, statedir)
    assert versions.rows[0] == ("kind", "0.31.0", "-", "0.31.0", "ok")
    assert versions.rows[3] == ("nvkind", "9a3061c0ffee", "9a3061c", "9a3061c", "ok")
    (statedir / "nvkind").write_bytes(b"go:9a3061c0ffee \xff not UTF-8\n")
    versions = versions_mod.Versions(stands.runner(), {**PINS, "nvkind": "9a3061cdead"}, {})
    versions.tools(BINARIES, statedir)
    # A commit matches by its short form, the first seven characters.
    assert versions.rows[3] == ("nvkind", "9a3061cdead", "-", "9a3061c0ffee", "ok")


def test_the_host_rows_toolkit_driver_docker_and_pulumi(
    stands: InProcess, runner: ActionSandbox, tmp_path: Path
) -> None:
    runner.sandbox.installed("nvidia-container-toolkit", "1.18.0-1")
    stands.rig.answer(
        "nvidia-smi --query-gpu=driver_version --format=csv,noheader", " 570.172.08 \n580.1\n"
    )
    stands.rig.answer("docker version --format {{.Server.Version}}", "28.3.3\n")
    pulumi = tmp_path / "pulumi-cli" / "pulumi"
    pulumi.parent.mkdir()
    pulumi.symlink_to(STUB)
    stands.rig.answer("pulumi version", "v3.272.0\n")
    planned = {"driverPackage": "nvidia-driver-575-open", "pulumi": "3.272.0"}
    ran = stands.runner()
    versions = versions_mod.Versions(ran, PINS, planned)
    versions.host(str(pulumi))
    assert versions.rows == [
        ("toolkit", "1.17.8-1", "-", "1.18.0-1", "DIFFERS"),
        ("driver", "570-server", "nvidia-driver-575-open", "570.172.08", "DIFFERS"),
        ("docker", "-", "-", "28.3.3", "?"),
        ("pulumi", "-", "3.272.0", "3.272.0", "ok"),
    ]
    assert "dpkg-query -W -f=${Status}\t${Version} nvidia-container-toolkit" in stands.calls()
    assert [r.name for r in ran.records] == [
        "version: toolkit",
        "version: driver",
        "version: docker",
        "version: pulumi",
    ]


def test_the_host_rows_match_when_the_plan_or_pin_is_installed(
    stands: InProcess, runner: ActionSandbox
) -> None:
    runner.sandbox.installed("nvidia-container-toolkit", "1.18.0-1")
    stands.rig.answer("nvidia-smi --query-gpu=driver_version --format=csv,noheader", "570.172.08\n")
    stands.rig.fail("docker", "Cannot connect to the Docker daemon")
    versions = versions_mod.Versions(stands.runner(), PINS, {"toolkit": "1.18.0-1"})
    versions.host("")
    assert versions.rows == [
        ("toolkit", "1.17.8-1", "1.18.0-1", "1.18.0-1", "ok"),
        ("driver", "570-server", "-", "570.172.08", "ok"),  # the pinned branch's major
        ("docker", "-", "-", "?", "?"),
    ]
    versions = versions_mod.Versions(stands.runner(), {"toolkit": "1.18.0-1"}, {})
    versions.host("")
    assert versions.rows[:2] == [
        ("toolkit", "1.18.0-1", "-", "1.18.0-1", "ok"),
        ("driver", "-", "-", "570.172.08", "?"),  # no branch: no expectation
    ]


def test_no_toolkit_package_and_no_gpu_are_unknown(stands: InProcess) -> None:
    stands.rig.answer("nvidia-smi --query-gpu=driver_version --format=csv,noheader", "")
    stands.rig.answer("docker version --format {{.Server.Version}}", "28.3.3\n")
    versions = versions_mod.Versions(stands.runner(), PINS, {})
    versions.host("")
    assert versions.rows[:2] == [
        ("toolkit", "1.17.8-1", "-", "?", "?"),
        ("driver", "570-server", "-", "?", "?"),
    ]


def cluster_answers(stands: InProcess, releases: object) -> None:
    stands.rig.answer(
        "kubectl version -o json", json.dumps({"serverVersion": {"gitVersion": "v1.35.0"}})
    )
    stands.rig.answer("helm list -A -o json", json.dumps(releases))


def test_the_cluster_rows_the_server_releases_and_check_images(stands: InProcess) -> None:
    cluster_answers(
        stands,
        [
            {"name": "gpu-operator", "chart": "gpu-operator-v26.7.0", "status": "deployed"},
            {"name": "kubeflow-trainer", "chart": "kubeflow-trainer-2.3.0", "status": "deployed"},
            {"name": "monitoring", "chart": "kube-prometheus-stack-84.4.0", "status": "failed"},
            "not a release",
        ],
    )
    plan = {
        "kubernetes": "v1.35.0",
        "charts": {
            "kubeflow-trainer": "oci://ghcr.io/kubeflow/charts/kubeflow-trainer 2.3.0",
            "gpu-operator": "gpu-operator v26.7.1",
            "monitoring": "kube-prometheus-stack 84.4.0",
            "absent": "absent 1.0.0",
        },
    }
    chainsaw, _, digest = PINS["chainsaw image"].partition("@")
    images = {
        PINS["chainsaw image"]: f"docker.io/{chainsaw}@{digest}",
        "nvidia/cuda:12.8.1-base": "docker.io/nvidia/cuda@sha256:" + "0" * 64,
        "example/other:1": "docker.io/example/other@sha256:" + "1" * 64,
        "pytorch/pytorch:2.11.0": "docker.io/pytorch/pytorch@sha256:" + "c" * 64,
    }
    ran = stands.runner()
    versions = versions_mod.Versions(ran, PINS, plan)
    versions.cluster("kubectl", "helm", images)
    assert versions.rows == [
        ("kubernetes", "-", "v1.35.0", "v1.35.0", "ok"),
        ("release absent", "-", "absent 1.0.0", "?", "?"),
        (
            "release gpu-operator",
            "-",
            "gpu-operator v26.7.1",
            "gpu-operator-v26.7.0 (deployed)",
            "DIFFERS",
        ),
        (
            "release kubeflow-trainer",
            "-",
            "oci://ghcr.io/kubeflow/charts/kubeflow-trainer 2.3.0",
            "kubeflow-trainer-2.3.0 (deployed)",
            "ok",  # helm list names an OCI chart by its own name
        ),
        (
            "release monitoring",
            "84.4.0",
            "kube-prometheus-stack 84.4.0",
            "kube-prometheus-stack-84.4.0 (failed)",
            "DIFFERS",
        ),
        ("chainsaw image", PINS["chainsaw image"], "-", images[PINS["chainsaw image"]], "ok"),
        ("cuda image", PINS["cuda image"], "-", images["nvidia/cuda:12.8.1-base"], "DIFFERS"),
        ("torch image", PINS["torch image"], "-", images["pytorch/pytorch:2.11.0"], "ok"),
    ]
    assert stands.calls() == ["kubectl version -o json", "helm list -A -o json"]
    assert [r.name for r in ran.records] == ["version: cluster", "version: helm releases"]


def test_an_unplanned_or_silent_cluster_is_unknown(stands: InProcess) -> None:
    stands.rig.answer("kubectl version -o json", json.dumps({"clientVersion": {}}))
    stands.rig.answer("helm list -A -o json", "null")
    versions = versions_mod.Versions(stands.runner(), {}, {"kubernetes": "v1.35.0", "charts": None})
    versions.cluster("kubectl", "helm", {})
    assert versions.rows == [("kubernetes", "-", "v1.35.0", "?", "?")]
    stands.rig.answer(
        "kubectl version -o json", json.dumps({"serverVersion": {"gitVersion": "v1.34.2"}})
    )
    versions = versions_mod.Versions(stands.runner(), {}, {})
    versions.cluster("kubectl", "helm", {})
    assert versions.rows == [("kubernetes", "-", "-", "v1.34.2", "?")]
    stands.rig.fail("kubectl", "connection refused")
    versions = versions_mod.Versions(stands.runner(), {}, {"kubernetes": "v1.35.0"})
    versions.cluster("kubectl", "helm", {})
    assert versions.rows == [("kubernetes", "-", "v1.35.0", "?", "?")]


def test_the_table_aligns_four_columns_and_ends_with_the_verdict() -> None:
    versions = versions_mod.Versions(None, {}, {})
    versions.row("kind", "0.31.0", "", "0.31.0", True)
    versions.row("release gpu-operator", "", "gpu-operator v26.7.0", "", False)
    assert versions.table() == (
        "what                  pins.py  plan                  installed  \n"
        "kind                  0.31.0   -                     0.31.0     ok\n"
        "release gpu-operator  -        gpu-operator v26.7.0  ?          ?\n"
    )
    versions.row("toolkit", "1.17.8-1", "", "1.18.0-1", False)
    assert versions.differs() == ["toolkit (expected 1.17.8-1, installed 1.18.0-1)"]


def test_a_failing_tool_is_unknown_whatever_it_printed(
    stands: InProcess, runner: ActionSandbox
) -> None:
    """nvidia-smi without a driver prints why on stdout and exits 9."""
    smi = runner.sandbox.bin / "nvidia-smi"
    smi.unlink()
    smi.write_text(
        "#!/bin/sh\necho \"NVIDIA-SMI has failed because it couldn't communicate with the "
        'NVIDIA driver."\nexit 9\n'
    )
    smi.chmod(0o755)
    stands.rig.answer("docker version --format {{.Server.Version}}", "28.3.3\n")
    versions = versions_mod.Versions(stands.runner(), PINS, {})
    versions.host("")
    assert versions.rows[1] == ("driver", "570-server", "-", "?", "?")


def test_a_toolkit_removed_but_configured_and_nothing_pinned_or_planned(
    stands: InProcess, runner: ActionSandbox, tmp_path: Path
) -> None:
    runner.sandbox.installed("nvidia-container-toolkit", "")  # dpkg: no version installed
    stands.rig.answer("nvidia-smi --query-gpu=driver_version --format=csv,noheader", "570.1\n")
    stands.rig.answer("docker version --format {{.Server.Version}}", "28.3.3\n")
    pulumi = tmp_path / "pulumi-cli" / "pulumi"
    pulumi.parent.mkdir()
    pulumi.symlink_to(STUB)
    stands.rig.answer("pulumi version", "v3.272.0\n")
    versions = versions_mod.Versions(stands.runner(), {}, {})
    versions.host(str(pulumi))
    assert versions.rows == [
        ("toolkit", "-", "-", "?", "?"),
        ("driver", "-", "-", "570.1", "?"),
        ("docker", "-", "-", "28.3.3", "?"),
        ("pulumi", "-", "-", "3.272.0", "?"),
    ]
