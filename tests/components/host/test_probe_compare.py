"""The drift job's comparer (components.host.probe_compare) on reports as host-probe.sh
prints them, case by case: each line an operator reads, and the command line the drift
workflow (.github/workflows/drift.yml) calls, which passes "" for a version the stack leaves
at the pins. test_host_probe.py runs the probe itself in its sandbox."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from components.host.probe_compare import Expected, ProbeReport, compare, main
from components.pins import PINS

TOOLKIT = (
    "nvidia-container-toolkit",
    "nvidia-container-toolkit-base",
    "libnvidia-container-tools",
    "libnvidia-container1",
)
GO = PINS.go.sha256["amd64"]


def _report(**changes: Any) -> dict[str, Any]:
    """host-probe.sh's report of a host at the pins (test_host_probe.py checks the shape)."""
    report: dict[str, Any] = {
        "probe": 1,
        "arch": "amd64",
        "driver": {
            "version": "570.172.08",
            "packages": {"nvidia-driver-570-server": "570.172.08-0ubuntu1"},
        },
        "toolkit": dict.fromkeys(TOOLKIT, PINS.toolkit_version),
        "docker": {"defaultRuntime": "nvidia"},
        "kind": {"version": f"v{PINS.kind.version}", "sha256": PINS.kind.sha256["amd64"]},
        "nvkind": {
            "identity": f"go:{PINS.nvkind.commit}:{GO}",
            "stampSha256": "ab" * 32,
            "sha256": "ab" * 32,
        },
        "clusters": ["gpu-ci"],
        "errors": [],
    }
    report.update(changes)
    return report


def _differences(want: Expected | None = None, **changes: Any) -> list[str]:
    report = ProbeReport.model_validate(_report(**changes))
    return compare("h", report, want or Expected.from_pins()).differences


def test_a_host_at_the_pins_has_no_drift() -> None:
    drift = compare("gpu-0", ProbeReport.model_validate(_report()), Expected.from_pins())
    assert drift.differences == [] and drift.text() == "host gpu-0: no drift\n"


def test_the_driver_is_compared_by_its_major_version_and_its_branchs_package() -> None:
    want = Expected(**{**Expected.from_pins().__dict__, "driver_branch": "570-server-open"})
    assert (
        _differences(
            want,
            driver={
                "version": "570.195.03",
                "packages": {"nvidia-driver-570-server-open": "570.195.03-0ubuntu1"},
            },
        )
        == []
    )
    assert _differences(
        want,
        driver={
            "version": "5701.1",
            "packages": {
                "nvidia-driver-575-open": "575.57.08-1",
                "nvidia-driver-570-server": "570.172.08-0ubuntu1",
            },
        },
    ) == [
        "driver: nvidia-smi reports 5701.1, the pin is branch 570-server-open",
        "driver: nvidia-driver-570-server-open is not installed (installed: "
        "nvidia-driver-570-server 570.172.08-0ubuntu1, nvidia-driver-575-open 575.57.08-1)",
    ]


def test_an_nvkind_that_is_not_a_go_build_is_named_by_its_identity() -> None:
    identity = "sha256:0123456789abcdef0123456789abcdef"
    assert _differences(nvkind={"identity": identity, "stampSha256": None, "sha256": "cd"}) == [
        f"nvkind: built from the binary {identity[:16]}…, the pin is commit {PINS.nvkind.commit}",
    ]


def test_readings_the_probe_could_not_take_are_not_compared() -> None:
    none = {"version": None, "sha256": None}
    assert _differences(
        arch=None,
        driver={"version": None, "packages": {"nvidia-driver-570-server": "570.172.08-0ubuntu1"}},
        toolkit=dict.fromkeys(TOOLKIT[1:], PINS.toolkit_version),
        docker={"defaultRuntime": None},
        kind=none,
        nvkind={"identity": None, "stampSha256": None, "sha256": "cd"},
        clusters=None,
        errors=["nvidia-smi: not found"],
    ) == ["probe: could not read nvidia-smi: not found"]


def test_a_kind_of_an_other_arch_is_checked_against_that_archs_pin() -> None:
    assert _differences(
        arch="arm64", kind={"version": f"v{PINS.kind.version}", "sha256": "ef"}
    ) == [f"kind: sha256 ef, the pin (arm64) is {PINS.kind.sha256['arm64']}"]
    assert (
        _differences(arch="s390x", kind={"version": f"v{PINS.kind.version}", "sha256": "ef"}) == []
    )


def test_other_clusters_are_listed_when_the_stacks_is_missing() -> None:
    assert _differences(clusters=["kind", "dev"]) == [
        "cluster: gpu-ci is not among kind's clusters (found: kind, dev)"
    ]


def test_the_drift_text_counts_and_lists_the_differences() -> None:
    drift = compare(
        "10.0.0.5",
        ProbeReport.model_validate(_report(docker={"defaultRuntime": "runc"}, errors=["x: y"])),
        Expected.from_pins(),
    )
    assert drift.text() == (
        "host 10.0.0.5: 2 difference(s) from the pins\n"
        "  - docker: the default runtime is runc, expected nvidia\n"
        "  - probe: could not read x: y\n"
    )


def _write(tmp: Path, data: object) -> Path:
    path = tmp / "probe-10.0.0.5.json"
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return path


def test_the_drift_jobs_empty_flags_mean_the_pins(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, _report())
    flags = ["--driver-branch", "", "--toolkit", "", "--nvkind", "", "--cluster", ""]
    assert main([str(path), "--host", "10.0.0.5", *flags]) == 0
    assert capsys.readouterr().out == "host 10.0.0.5: no drift\n"
    assert main([str(path)]) == 0
    assert capsys.readouterr().out == f"host {path}: no drift\n"


def test_the_stacks_versions_as_flags_replace_the_pins(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, _report())
    flags = ["--driver-branch", "575-open", "--toolkit", "1.19.0-1", "--nvkind", "abc1234"]
    assert main([str(path), "--host", "h", *flags, "--cluster", "ci"]) == 1
    assert capsys.readouterr().out.splitlines() == [
        "host h: 8 difference(s) from the pins",
        "  - driver: nvidia-smi reports 570.172.08, the pin is branch 575-open",
        "  - driver: nvidia-driver-575-open is not installed (installed: "
        "nvidia-driver-570-server 570.172.08-0ubuntu1)",
        *(f"  - toolkit: {p} is {PINS.toolkit_version}, the pin is 1.19.0-1" for p in TOOLKIT),
        f"  - nvkind: built from commit {PINS.nvkind.commit}, the pin is commit abc1234",
        "  - cluster: ci is not among kind's clusters (found: gpu-ci)",
    ]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            '{"probe": 1,',
            "{path}: not JSON (Expecting property name enclosed in double quotes at line 1, "
            "column 13)",
        ),
        (
            [1],
            "{path}: not a host-probe.sh report ((top): Input should be a valid dictionary or "
            "instance of ProbeReport); run components/host/scripts/host-probe.sh on the host",
        ),
        (
            _report(kind={"version": "v1"}),
            "{path}: not a host-probe.sh report (kind.sha256: Field required); run "
            "components/host/scripts/host-probe.sh on the host",
        ),
    ],
    ids=["not-json", "not-an-object", "a-field-missing"],
)
def test_a_report_that_is_not_the_probes_is_exit_2_with_one_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: object, message: str
) -> None:
    path = _write(tmp_path, content)
    assert main([str(path)]) == 2
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == ("", f"error: {message.format(path=path)}\n")


def test_the_usage_names_every_flag_and_its_default(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "100")
    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0
    pad = " " * 47
    assert capsys.readouterr().out == (
        "usage: python -m components.host.probe_compare [-h] [--host HOST] [--driver-branch "
        "DRIVER_BRANCH]\n"
        f"{pad}[--toolkit TOOLKIT] [--nvkind NVKIND]\n"
        f"{pad}[--cluster CLUSTER]\n"
        f"{pad}report\n"
        "\n"
        "positional arguments:\n"
        "  report                host-probe.sh's JSON output\n"
        "\n"
        "options:\n"
        "  -h, --help            show this help message and exit\n"
        "  --host HOST           the host's name in the output\n"
        "  --driver-branch DRIVER_BRANCH\n"
        f"                        default {PINS.driver_branch}\n"
        f"  --toolkit TOOLKIT     default {PINS.toolkit_version}\n"
        f"  --nvkind NVKIND       commit; default {PINS.nvkind.commit}\n"
        "  --cluster CLUSTER     default gpu-ci\n"
    )
