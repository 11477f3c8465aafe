"""The gpu-cluster action's shell steps, run as action.yml runs them, in the stub sandbox.

`tests/components/host/sandbox.py` gives PATH only recording stubs (sudo, curl, docker, kind, ...)
and a few harmless real tools; this adds what the action's steps run besides: a Pulumi
CLI stand-in (`pulumi_stub.bash`) that the action downloads from the pinned URL, SHA-256
checks and extracts like the real tarball, `kind load` (the host stub knows only the
commands the host steps call), and the GitHub files a step writes (GITHUB_OUTPUT, ...).
The program is this checkout, so `configure` really plans the stack it writes.
"""

from __future__ import annotations

import hashlib
import io
import json
import platform
import shutil
import sys
import tarfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.components.host.sandbox import STUB, Run, Sandbox

from .runner_commands import file_entries

REPO = Path(__file__).resolve().parents[2]
ACTION = REPO / ".github" / "actions" / "gpu-cluster"
SCRIPTS = ACTION / "scripts"
COLLECT = SCRIPTS / "collect"
"""The diagnostics collector's modules (the collect step runs collect.py there)."""
PULUMI_STUB = Path(__file__).with_name("pulumi_stub.bash")
VERSION = "3.272.0"
ARCH = {"x86_64": "x64", "aarch64": "arm64", "arm64": "arm64"}[platform.machine().lower()]
ARCHIVE = f"pulumi-v{VERSION}-linux-{ARCH}.tar.gz"
SDK_URL = "https://get.pulumi.com/releases/sdk"
EXTRA_REAL = ("ln", "tee", "uname")

DEFAULT_INPUTS = {
    "INPUT_CLUSTER_NAME": "kind",
    "INPUT_SERVICE": "kind",
    "INPUT_ACCELERATOR": "a10",
    "INPUT_INTENT": "training",
    "INPUT_PLATFORM": "kubeflow",
    "INPUT_DEPLOY_PLATFORM": "true",
    "INPUT_GPUS": "all",
    "INPUT_CDI": "false",
    "INPUT_PULUMI_VERSION": VERSION,
}
"""The variables action.yml passes the configure step, at the defaults the tests use."""

KIND_STUB = """#!/bin/bash
# `kind load docker-image` for the action's tests; everything else is the host stub's.
if [ "$1" = load ]; then
  printf '%s\\n' "kind $*" >>"$SANDBOX/calls.log"
  exit 0
fi
exec "$SANDBOX/host-stubs/kind" "$@"
"""

KUBECONFIG = (
    "apiVersion: v1\nkind: Config\nclusters:\n- cluster:\n    server: https://127.0.0.1:6443\n"
    "  name: kind-kind\nusers:\n- name: kind-kind\n  user:\n"
    "    client-key-data: S3CRET-KEY-DATA\n"
)
OUTPUTS: dict[str, Any] = {
    "cluster": {
        "apiServerPort": 6443,
        "contractVersion": 1,
        "facts": {"Host.driver.branch": "570-server", "K8s.server.version": "v1.35.0"},
        "gpuCount": None,
        "kind": "nvkind",
        "kubernetesVersion": "v1.35.0",
        "name": "kind",
        "nodeImage": "kindest/node:v1.35.0@sha256:" + "4" * 64,
    },
    "host": {
        "cdi": False,
        "contractVersion": 1,
        "hosts": [
            {
                "name": "local",
                "driverVersion": "570.172.08",
                "gpus": [{"index": 0, "name": "NVIDIA A10", "uuid": "GPU-a10"}],
            }
        ],
        "runners": [],
        "target": "local",
        "versions": {"driverBranch": "570-server", "nvkind": "9a3061c", "toolkit": "1.17.8-1"},
    },
    "kubeconfig": KUBECONFIG,
    "platform": {"contractVersion": 1, "releases": {}},
}


def pulumi_tarball() -> bytes:
    """The CLI tarball's layout (pulumi/pulumi, its language host) around the stub."""
    stub = PULUMI_STUB.read_bytes()
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, data in (
            ("pulumi/pulumi", stub),
            ("pulumi/pulumi-language-python", b"#!/bin/sh\nexit 0\n"),
        ):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = 0o755
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


@dataclass
class ActionSandbox:
    """One runner: the sandbox, the job's temp dir, the tool cache, the project folder."""

    sandbox: Sandbox
    inputs: dict[str, str] = field(default_factory=dict)
    overrides: dict[str, str] = field(default_factory=dict)
    """Variables set over everything env() gives a step (GPU_CI_WORK, PATH, ...)."""

    def __post_init__(self) -> None:
        base = self.sandbox.base
        self.work = base / "runner-temp" / "gpu-ci" / "kind"
        self.cache = base / "tool-cache" / "gpu-ci"
        self.project = base / "project"
        self.github = base / "github"
        self.temp = base / "runner-temp"
        self.workspace = base / "workspace"
        for path in (self.project, self.github, base / "host-stubs", self.workspace, self.temp):
            path.mkdir(parents=True)
        shutil.copy(REPO / "Pulumi.yaml", self.project / "Pulumi.yaml")
        bin_ = self.sandbox.bin
        for name in EXTRA_REAL:
            real = shutil.which(name)
            assert real is not None, f"{name} is needed by the action's steps"
            (bin_ / name).symlink_to(real)
        (base / "host-stubs" / "kind").symlink_to(STUB)
        (bin_ / "kind").unlink()
        (bin_ / "kind").write_text(KIND_STUB)
        (bin_ / "kind").chmod(0o755)
        self.make_venv()
        self.serve_pulumi()
        self.put_outputs(OUTPUTS)

    # --- the runner ----------------------------------------------------------------------
    def make_venv(self) -> None:
        """The virtualenv as actions/cache restores it: this interpreter's, at the cache path."""
        venv, ours = self.cache / "venv", Path(sys.prefix)
        (venv / "bin").mkdir(parents=True)
        shutil.copy(ours / "pyvenv.cfg", venv / "pyvenv.cfg")
        (venv / "bin" / "python").symlink_to(Path(sys.executable))
        (venv / "lib").symlink_to(ours / "lib", target_is_directory=True)

    def serve_pulumi(self, tarball: bytes | None = None, *, listed: str | None = None) -> str:
        """Serve the CLI tarball and the release's checksums file (listing `listed`)."""
        data = tarball if tarball is not None else pulumi_tarball()
        digest = self.sandbox.serve(f"{SDK_URL}/{ARCHIVE}", data)
        checksums = (
            f"{listed or digest}  {ARCHIVE}\n{'0' * 64}  pulumi-v{VERSION}-darwin-x64.tar.gz\n"
        )
        self.sandbox.serve(f"{SDK_URL}/pulumi-{VERSION}-checksums.txt", checksums.encode())
        return digest

    def put_outputs(self, outputs: dict[str, Any]) -> None:
        self.sandbox.put("pulumi/outputs.json", json.dumps(outputs))

    def github_file(self, name: str) -> str:
        path = self.github / name
        return path.read_text() if path.exists() else ""

    def step_outputs(self) -> dict[str, str]:
        """GITHUB_OUTPUT, read as the runner reads it (runner_commands.file_entries)."""
        return dict(file_entries(self.github_file("output")))

    # --- running a step ------------------------------------------------------------------
    def env(self, **inputs: str) -> dict[str, str]:
        values = {
            **DEFAULT_INPUTS,
            **self.inputs,
            **{f"INPUT_{k.upper()}": v for k, v in inputs.items()},
        }
        return {
            **values,
            "GPU_CI_WORK": str(self.work),
            "GPU_CI_CACHE": str(self.cache),
            "GPU_CI_PROJECT": str(self.project),
            "GPU_CI_ROOT": str(self.sandbox.root),
            "GPU_CI_BASE_PYTHON": sys.executable,
            "GPU_CI_PYTHON_VERSION": "3.11.7",
            "GPU_CI_RETRY_BASE_SECONDS": "0",
            "GITHUB_OUTPUT": str(self.github / "output"),
            "GITHUB_ENV": str(self.github / "env"),
            "GITHUB_STEP_SUMMARY": str(self.github / "summary"),
            "GITHUB_WORKSPACE": str(self.workspace),
            "RUNNER_TEMP": str(self.temp),
            "GITHUB_ACTION_PATH": str(ACTION),
            **self.overrides,
        }

    def run(self, step: str, *args: str, **inputs: str) -> Run:
        """One of action.yml's shell steps: `bash scripts/STEP.sh ARGS`."""
        return self.sandbox.run_file(SCRIPTS / f"{step}.sh", *args, env=self.env(**inputs))

    def up_to_install(self, **inputs: str) -> list[Run]:
        """prepare, configure and install, as action.yml runs them before `up`."""
        runs = []
        for step in ("prepare", "configure", "install"):
            run = self.run(step, **inputs)
            assert run.returncode == 0, f"{step}: {run.stderr}"
            runs.append(run)
        return runs

    def stack_file(self) -> Path:
        return self.project / "Pulumi.gpu-cluster-kind.yaml"

    def plan(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads((self.work / "plan.json").read_text())
        return data


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
