"""The host probe (scripts/host-probe.sh) and its comparer (components.host.probe_compare).

The probe runs in a sandbox whose PATH holds only stubs of the read-only commands it may
call (probe_stub.bash) and a few harmless real tools, so a command that writes would fail
with 127. Its JSON report goes to the comparer, which must name each difference from the
pins exactly: the drift job fails on it (pulumi-command has no Read, pulumi/pulumi-command#432).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from components.host.probe_compare import Expected, ProbeReport, compare, main
from components.pins import PINS

SCRIPT = Path(__file__).parents[3] / "components/host/scripts/host-probe.sh"
STUB = Path(__file__).with_name("probe_stub.bash")
STUBBED = ("sudo", "dpkg", "dpkg-query", "nvidia-smi", "docker")
REAL = ("bash", "basename", "cat", "cut", "grep", "head", "ls", "mktemp", "rm", "sha256sum", "tr")
TOOLKIT = (
    "nvidia-container-toolkit",
    "nvidia-container-toolkit-base",
    "libnvidia-container-tools",
    "libnvidia-container1",
)
NVKIND_BINARY = b"\x7fELF nvkind built from 9a3061c"


@dataclass
class Host:
    base: Path

    @property
    def state(self) -> Path:
        return self.base / "state"

    @property
    def bindir(self) -> Path:
        return self.base / "usr-local-bin"

    @property
    def statedir(self) -> Path:
        return self.base / "var-lib-gpu-ci-tools"

    def put(self, name: str, content: str) -> None:
        path = self.state / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)

    def probe(self) -> tuple[subprocess.CompletedProcess[str], list[str]]:
        done = subprocess.run(
            ["bash", str(SCRIPT), str(self.bindir), str(self.statedir)],
            env={"PATH": str(self.base / "bin"), "SANDBOX": str(self.base), "HOME": str(self.base)},
            capture_output=True,
            text=True,
            check=False,
            timeout=60,
        )
        log = self.base / "calls.log"
        calls = log.read_text().splitlines() if log.exists() else []
        return done, calls

    def report(self) -> ProbeReport:
        done, _ = self.probe()
        assert done.returncode == 0, done.stderr
        return ProbeReport.model_validate(json.loads(done.stdout))


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture
def host(tmp_path: Path) -> Host:
    """A host as the host layer leaves it, at the pins."""
    h = Host(tmp_path)
    (tmp_path / "bin").mkdir()
    for name in STUBBED:
        (tmp_path / "bin" / name).symlink_to(STUB)
    for name in REAL:
        real = shutil.which(name)
        assert real is not None, name
        (tmp_path / "bin" / name).symlink_to(real)
    h.bindir.mkdir()
    shutil.copy(STUB, h.bindir / "kind")  # named kind: it answers as kind
    os.chmod(h.bindir / "kind", 0o755)
    (h.bindir / "nvkind").write_bytes(NVKIND_BINARY)
    os.chmod(h.bindir / "nvkind", 0o755)
    h.statedir.mkdir()
    go = PINS.go.sha256["amd64"]
    (h.statedir / "nvkind").write_text(f"go:{PINS.nvkind.commit}:{go} {_sha(NVKIND_BINARY)}\n")
    h.put("arch", "amd64\n")
    h.put("driver-version", "570.172.08\n")
    h.put("dpkg/nvidia-driver-570-server", "570.172.08-0ubuntu1")
    for package in TOOLKIT:
        h.put(f"dpkg/{package}", PINS.toolkit_version)
    h.put("docker-runtime", "nvidia\n")
    h.put("kind-version", f"kind v{PINS.kind.version} go1.25.5 linux/amd64\n")
    h.put("kind-clusters/gpu-ci", "")
    return h


def _pinned_kind(host: Host) -> Expected:
    """The pins, with kind's SHA-256 that of the sandbox's kind (the stub copied there)."""
    want = Expected.from_pins()
    return Expected(
        **{**want.__dict__, "kind_sha256": {"amd64": _sha((host.bindir / "kind").read_bytes())}}
    )


def test_a_host_at_the_pins_reports_them_and_no_drift(host: Host) -> None:
    done, calls = host.probe()
    assert done.returncode == 0 and done.stderr == ""
    data = json.loads(done.stdout)
    assert data == {
        "probe": 1,
        "arch": "amd64",
        "driver": {
            "version": "570.172.08",
            "packages": {"nvidia-driver-570-server": "570.172.08-0ubuntu1"},
        },
        "toolkit": dict.fromkeys(TOOLKIT, PINS.toolkit_version),
        "docker": {"defaultRuntime": "nvidia"},
        "kind": {
            "version": f"v{PINS.kind.version}",
            "sha256": _sha((host.bindir / "kind").read_bytes()),
        },
        "nvkind": {
            "identity": f"go:{PINS.nvkind.commit}:{PINS.go.sha256['amd64']}",
            "stampSha256": _sha(NVKIND_BINARY),
            "sha256": _sha(NVKIND_BINARY),
        },
        "clusters": ["gpu-ci"],
        "errors": [],
    }
    # Only reads, in this order (as root the probe calls docker and kind without sudo).
    sudo = [] if os.geteuid() == 0 else ["sudo -n docker info --format {{.DefaultRuntime}}"]
    assert [c for c in calls if not c.startswith("dpkg-query")] == [
        "dpkg --print-architecture",
        "nvidia-smi --query-gpu=driver_version --format=csv,noheader",
        *sudo,
        "docker info --format {{.DefaultRuntime}}",
        "kind version",
        *([] if os.geteuid() == 0 else [f"sudo -n {host.bindir}/kind get clusters"]),
        "kind get clusters",
    ]
    assert compare("gpu-0", ProbeReport.model_validate(data), _pinned_kind(host)).differences == []


def test_each_drift_is_named_exactly(host: Host) -> None:
    host.put("driver-version", "575.57.08\n")
    (host.state / "dpkg/nvidia-driver-570-server").unlink()
    host.put("dpkg/nvidia-driver-575-server", "575.57.08-0ubuntu1")
    host.put("dpkg/libnvidia-container1", "1.18.0-1")
    (host.state / "dpkg/nvidia-container-toolkit-base").unlink()
    host.put("docker-runtime", "runc\n")
    host.put("kind-version", "kind v0.30.0 go1.24.2 linux/amd64\n")
    (host.bindir / "nvkind").write_bytes(b"rebuilt by hand")
    (host.state / "kind-clusters/gpu-ci").unlink()
    drift = compare("gpu-0", host.report(), _pinned_kind(host))
    stamp = _sha(NVKIND_BINARY)
    assert drift.text().splitlines() == [
        "host gpu-0: 8 difference(s) from the pins",
        "  - driver: nvidia-smi reports 575.57.08, the pin is branch 570-server",
        "  - driver: nvidia-driver-570-server is not installed (installed: "
        "nvidia-driver-575-server 575.57.08-0ubuntu1)",
        "  - toolkit: nvidia-container-toolkit-base is not installed, the pin is "
        f"{PINS.toolkit_version}",
        f"  - toolkit: libnvidia-container1 is 1.18.0-1, the pin is {PINS.toolkit_version}",
        "  - docker: the default runtime is runc, expected nvidia",
        f"  - kind: v0.30.0, the pin is v{PINS.kind.version}",
        f"  - nvkind: the binary's sha256 {_sha(b'rebuilt by hand')} is not the {stamp} the tools "
        "step installed",
        "  - cluster: gpu-ci is not among kind's clusters (found: none)",
    ]


def test_the_real_kind_pin_and_an_other_nvkind_commit(host: Host) -> None:
    """Against components/pins.py itself: the stub is not the pinned kind binary."""
    (host.statedir / "nvkind").write_text(f"go:0123abc:{'0' * 64} {_sha(NVKIND_BINARY)}\n")
    drift = compare("gpu-0", host.report(), Expected.from_pins())
    assert drift.differences == [
        f"kind: sha256 {_sha((host.bindir / 'kind').read_bytes())}, the pin (amd64) is "
        f"{PINS.kind.sha256['amd64']}",
        f"nvkind: built from commit 0123abc, the pin is commit {PINS.nvkind.commit}",
    ]


def test_readings_that_fail_are_drift_not_silence(host: Host) -> None:
    (host.state / "driver-version").unlink()
    host.put("docker-down", "")
    host.put("dpkg-broken", "")
    (host.statedir / "nvkind").unlink()
    report = host.report()
    assert report.driver.version is None and report.docker.defaultRuntime is None
    assert report.errors == [
        "nvidia-smi: NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.",
        "dpkg-query nvidia-driver-*: dpkg-query: error: parsing file '/var/lib/dpkg/status' "
        "near line 4",
        *(
            f"dpkg-query {p}: dpkg-query: error: parsing file '/var/lib/dpkg/status' near line 4"
            for p in TOOLKIT
        ),
        "docker info: Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is "
        "the docker daemon running?",
        f"nvkind: no stamp {host.statedir}/nvkind (the tools step writes it)",
    ]
    lines = compare("gpu-0", report, _pinned_kind(host)).differences
    assert "probe: could not read docker info: Cannot connect to the Docker daemon at " in lines[-2]
    assert lines[0] == "driver: nvidia-driver-570-server is not installed (installed: none)"


def test_the_stacks_own_versions_override_the_pins(host: Host) -> None:
    host.put("dpkg/nvidia-container-toolkit", "1.19.1-1")
    for package in TOOLKIT:
        host.put(f"dpkg/{package}", "1.19.1-1")
    report = host.report()
    assert compare("h", report, _pinned_kind(host)).differences[0].startswith("toolkit: ")
    want = Expected.from_pins(toolkit="1.19.1-1")
    assert compare("h", report, Expected(**{**want.__dict__, "kind_sha256": {}})).differences == []


def test_the_command_line(host: Host, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "report.json"
    done, _ = host.probe()
    report.write_text(done.stdout)
    # The sandbox's kind is not the pinned binary: that one difference, exit 1.
    assert main([str(report), "--host", "203.0.113.9"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "host 203.0.113.9: 1 difference(s) from the pins"
    report.write_text('{"probe": 2}')
    assert main([str(report)]) == 2
    assert capsys.readouterr().err == (
        f"error: {report}: not a host-probe.sh report (probe: Input should be 1); run "
        "components/host/scripts/host-probe.sh on the host\n"
    )


def test_the_probe_is_shellcheck_clean() -> None:
    shellcheck = Path(sys.executable).with_name("shellcheck")
    done = subprocess.run(
        [str(shellcheck), "--severity=style", str(SCRIPT)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout
