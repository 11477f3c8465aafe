"""The OCI CLI in every workflow job that runs Pulumi for a stack which may be `arc`.

An OKE cluster's kubeconfig (components/arc/oke.py, from `getClusterKubeConfig`)
authenticates with the exec plugin `oci ce cluster generate-token`, which the Kubernetes
provider runs at preview and at up. So each such job installs an exactly pinned OCI CLI
before Pulumi runs, writes its config from the same secrets the OCI provider gets (secrets
reach scripts only through `env:`, never interpolated into the script text), and removes
the key afterwards, whatever happened. The configure and cleanup scripts are also run
here for real, with fake secrets, in a throwaway HOME.

The pin lives in the workflow, not in components/pins.py: that file holds what a host
bootstrap installs on a GPU machine, while this is a tool of the GitHub-hosted deployer.
"""

from __future__ import annotations

import configparser
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tools.tasks.upstream_tools import required

REPO = Path(__file__).resolve().parents[2]
WORKFLOWS = sorted((REPO / ".github" / "workflows").glob("*.yml"))
PULUMI_ACTION = "pulumi/actions@"
PULUMI_RUN = re.compile(r"\bpulumi\s+(?:up|preview|refresh|destroy)\b")
EXACT_VERSION = re.compile(r"[0-9]+\.[0-9]+\.[0-9]+")
PIN = re.compile(r"oci-cli==(\S+?)[\"'\s]")
SECRET_REF = re.compile(r"\$\{\{\s*secrets\.([A-Za-z0-9_]+)\s*\}\}")


def _load(path: Path) -> dict[str, Any]:
    raw: dict[Any, Any] = yaml.safe_load(path.read_text())
    # YAML 1.1 reads the key `on` as the boolean true.
    return {("on" if k is True else str(k)): v for k, v in raw.items()}


def _runs_pulumi(step: dict[str, Any]) -> bool:
    """The step runs Pulumi on a stack (pulumi/actions without `command` only installs it)."""
    if str(step.get("uses", "")).startswith(PULUMI_ACTION):
        return bool((step.get("with") or {}).get("command"))
    return bool(PULUMI_RUN.search(str(step.get("run", ""))))


def _may_be_arc(step: dict[str, Any]) -> bool:
    """The stack is `arc`, or chosen at run time (an expression or a variable)."""
    if "uses" in step:
        stack = str((step.get("with") or {}).get("stack-name", ""))
    else:
        found = re.search(r"(?:-s|--stack)[ =](\S+)", str(step["run"]))
        stack = found.group(1) if found else "$PULUMI_STACK"
    return "${{" in stack or "$" in stack or stack.rsplit("/", 1)[-1] == "arc"


class PulumiJob:
    def __init__(self, path: Path, data: dict[str, Any], name: str) -> None:
        self.path = path
        self.data = data
        self.name = name
        self.job: dict[str, Any] = data["jobs"][name]
        self.steps: list[dict[str, Any]] = self.job.get("steps", [])
        self.pulumi = next(i for i, s in enumerate(self.steps) if _runs_pulumi(s))

    def __repr__(self) -> str:
        return f"{self.path.name}:{self.name}"

    def index(self, wanted: str) -> int:
        found = [i for i, s in enumerate(self.steps) if wanted in str(s.get("run", ""))]
        assert found, f"{self}: no step runs {wanted!r}"
        return found[0]

    def env(self, step: dict[str, Any]) -> dict[str, str]:
        """A step's environment as GitHub layers it: workflow, job, step."""
        return {
            str(k): str(v)
            for scope in (self.data, self.job, step)
            for k, v in (scope.get("env") or {}).items()
        }


def _pulumi_jobs() -> list[PulumiJob]:
    jobs = []
    for path in WORKFLOWS:
        data = _load(path)
        for name, job in data["jobs"].items():
            steps = job.get("steps", [])
            if any(_runs_pulumi(s) and _may_be_arc(s) for s in steps):
                jobs.append(PulumiJob(path, data, name))
    return jobs


JOBS = _pulumi_jobs()


def _stack_workflow() -> PulumiJob:
    return next(j for j in JOBS if j.path.name == "pulumi-stack.yml" and j.name == "pulumi")


def _pinned_version(job: PulumiJob) -> str:
    step = job.steps[job.index("oci-cli==")]
    match = PIN.search(str(step["run"]) + "\n")
    assert match, f"{job}: no `oci-cli==VERSION` in the install step"
    version = match.group(1)
    if variable := re.fullmatch(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?", version):
        version = job.env(step).get(variable.group(1), "")
    return version


def test_the_reusable_stack_workflow_is_among_the_jobs_checked() -> None:
    """A scanner that finds no job would make every check below pass vacuously."""
    assert _stack_workflow().steps[_stack_workflow().pulumi]["uses"].startswith(PULUMI_ACTION)
    for path in WORKFLOWS:
        # The callers run Pulumi only through pulumi-stack.yml (checked here), never inline.
        for name, job in _load(path)["jobs"].items():
            if "uses" in job and "pulumi" in job["uses"]:
                assert job["uses"] == "./.github/workflows/pulumi-stack.yml", (path.name, name)


@pytest.mark.parametrize("job", JOBS, ids=repr)
def test_the_pinned_oci_cli_is_installed_before_pulumi_runs(job: PulumiJob) -> None:
    install = job.index("oci-cli==")
    assert install < job.pulumi, f"{job}: the OCI CLI is installed after Pulumi runs"
    script = str(job.steps[install]["run"])
    assert re.search(r"\bpip\b.*\binstall\b", script), f"{job}: not installed with pip"
    version = _pinned_version(job)
    assert EXACT_VERSION.fullmatch(version), f"{job}: oci-cli pin {version!r} is not exact"
    assert "GITHUB_PATH" in script, f"{job}: `oci` is not put on PATH for later steps"
    assert "--version" in script, f"{job}: the installed version is not checked"


def test_every_workflow_pins_the_same_oci_cli_in_one_place() -> None:
    versions = {_pinned_version(job) for job in JOBS}
    assert len(versions) == 1, versions
    (version,) = versions
    mentions = sum(p.read_text().count(f'"{version}"') for p in WORKFLOWS)
    assert mentions == len({j.path for j in JOBS}), "the oci-cli version is typed more than once"


@pytest.mark.parametrize("job", JOBS, ids=repr)
def test_the_oci_cli_is_configured_from_the_providers_secrets_via_env(job: PulumiJob) -> None:
    configure = job.index(".oci")
    assert configure < job.pulumi, f"{job}: the OCI CLI is configured after Pulumi runs"
    step = job.steps[configure]
    for s in job.steps:
        script = str(s.get("run", ""))
        assert "secrets." not in script, f"{job}: a secret is interpolated into a script"
        assert not re.search(r"\bset\s+-[a-z]*x", script), f"{job}: `set -x` would echo secrets"
    provider = {
        m for k, v in job.env(job.steps[job.pulumi]).items() if k.startswith("TF_VAR_")
        for m in SECRET_REF.findall(v)
    }  # fmt: skip
    cli = {m for v in (step.get("env") or {}).values() for m in SECRET_REF.findall(str(v))}
    assert provider, f"{job}: the provider's OCI secrets were not found"
    assert cli == provider, f"{job}: the OCI CLI uses other secrets than the provider"
    assert "OCI_CLI_CONFIG_FILE" in str(step["run"]), f"{job}: the exec may not find the config"


@pytest.mark.parametrize("job", JOBS, ids=repr)
def test_the_key_is_removed_after_pulumi_whatever_happened(job: PulumiJob) -> None:
    cleanup = [
        i
        for i, s in enumerate(job.steps)
        if "rm " in str(s.get("run", "")) and ".oci" in str(s.get("run", ""))
    ]
    assert cleanup, f"{job}: nothing removes the OCI key"
    step = job.steps[cleanup[-1]]
    assert cleanup[-1] > job.pulumi, f"{job}: the key is removed before Pulumi runs"
    assert str(step.get("if", "")).strip() in {"always()", "${{ always() }}"}, job


# The scripts, run for real (bash, as GitHub runs `run:` steps) with fake secrets.

FAKE = {
    "OCI_TENANCY": "ocid1.tenancy.oc1..fake-tenancy-3d1f",
    "OCI_USER": "ocid1.user.oc1..fake-user-8a2c",
    "OCI_FINGERPRINT": "aa:bb:cc:dd:ee:ff:00:11:22:33:44:55:66:77:88:99",
    "OCI_PRIVATE_KEY": (
        "-----BEGIN PRIVATE KEY-----\nfake-key-body-5e7b\n-----END PRIVATE KEY-----"
    ),
}


def _script(job: PulumiJob, index: int, tmp_path: Path) -> Path:
    path = tmp_path / f"step-{index}.sh"
    path.write_text(str(job.steps[index]["run"]))
    return path


def _workspace(tmp_path: Path, stack: str) -> Path:
    """A checkout with the stack's file and a .venv python (this one: it has PyYAML)."""
    work = tmp_path / "work"
    (work / ".venv" / "bin").mkdir(parents=True)
    python = work / ".venv" / "bin" / "python"
    python.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    python.chmod(0o755)
    shutil.copy(REPO / f"Pulumi.{stack}.yaml", work)
    return work


def _bash(script: Path, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )


def _configure(
    tmp_path: Path, secrets: dict[str, str], stack: str = "arc"
) -> tuple[PulumiJob, subprocess.CompletedProcess[str], dict[str, str]]:
    job = _stack_workflow()
    home = tmp_path / "home"
    home.mkdir()
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "GITHUB_ENV": str(tmp_path / "github-env"),
        "STACK": stack,
        **secrets,
    }
    done = _bash(_script(job, job.index(".oci"), tmp_path), _workspace(tmp_path, stack), env)
    return job, done, env


def test_the_configure_script_writes_a_private_config_and_key(tmp_path: Path) -> None:
    job, done, env = _configure(tmp_path, FAKE)
    assert done.returncode == 0, done.stderr
    for value in FAKE.values():
        for line in value.splitlines():
            assert line not in done.stdout + done.stderr
    oci = Path(env["HOME"]) / ".oci"
    assert stat.S_IMODE(oci.stat().st_mode) == 0o700
    exported = dict(line.split("=", 1) for line in Path(env["GITHUB_ENV"]).read_text().splitlines())
    config_file = Path(exported["OCI_CLI_CONFIG_FILE"])
    assert config_file.parent == oci
    assert exported["OCI_CLI_PROFILE"] == "DEFAULT"
    assert exported["OCI_CLI_AUTH"] == "api_key"
    parser = configparser.ConfigParser()
    parser.read(config_file)
    profile = parser["DEFAULT"]
    region = yaml.safe_load((REPO / "Pulumi.arc.yaml").read_text())["config"]["oci:region"]
    key_file = Path(profile["key_file"])
    assert dict(profile) == {
        "user": FAKE["OCI_USER"],
        "fingerprint": FAKE["OCI_FINGERPRINT"],
        "tenancy": FAKE["OCI_TENANCY"],
        "key_file": str(key_file),
        "region": region,
    }
    assert key_file.read_text() == FAKE["OCI_PRIVATE_KEY"] + "\n"
    for path in (config_file, key_file):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path

    cleanup = next(
        i
        for i, s in enumerate(job.steps)
        if i > job.pulumi and "rm " in str(s.get("run", "")) and ".oci" in str(s["run"])
    )
    removed = _bash(_script(job, cleanup, tmp_path), tmp_path, env)
    assert removed.returncode == 0, removed.stderr
    assert not config_file.exists() and not key_file.exists()


def test_without_the_oci_secrets_the_configure_script_writes_nothing(tmp_path: Path) -> None:
    """Stacks whose OCI config comes from their ESC environment leave the secrets unset."""
    _, done, env = _configure(tmp_path, dict.fromkeys(FAKE, ""), stack="dev")
    assert done.returncode == 0, done.stderr
    assert "::notice::" in done.stdout
    assert not (Path(env["HOME"]) / ".oci").exists()
    assert not Path(env["GITHUB_ENV"]).exists()


def test_the_oci_cli_accepts_the_written_config(tmp_path: Path) -> None:
    """End to end, offline: generate-token only signs a URL, so a fake identity suffices.

    Needs the pinned OCI CLI on PATH and openssl: `.ci/run` installs the CLI, so where CI
    runs their absence fails; elsewhere the test skips, saying what to install.
    """
    oci, openssl = shutil.which("oci"), shutil.which("openssl")
    if oci is None or openssl is None:
        missing = "needs `oci` (pip install oci-cli==PIN, as .ci/run does) and openssl on PATH"
        if required():
            pytest.fail(missing)
        pytest.skip(missing)
    version = subprocess.run([oci, "--version"], capture_output=True, text=True, check=True)
    assert version.stdout.strip() == _pinned_version(_stack_workflow())
    key = subprocess.run(
        [openssl, "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    _, done, env = _configure(tmp_path, {**FAKE, "OCI_PRIVATE_KEY": key})
    assert done.returncode == 0, done.stderr
    for line in Path(env["GITHUB_ENV"]).read_text().splitlines():
        name, value = line.split("=", 1)
        env[name] = value
    # The exec args of an OKE kubeconfig (token version 2.0.0).
    args = ["ce", "cluster", "generate-token", "--cluster-id", "ocid1.cluster.oc1.iad.fake"]
    token = subprocess.run(
        [oci, *args, "--region", "us-ashburn-1"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert token.returncode == 0, token.stderr
    assert '"kind": "ExecCredential"' in token.stdout
    assert "Warning" not in token.stderr, token.stderr
