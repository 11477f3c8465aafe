"""Shared set-up for the GitHub runner step tests: a fake runner tarball, a fake App key
and the GitHub API answers an installation gets."""

from __future__ import annotations

import base64
import getpass
import hashlib
import io
import json
import os
import shutil
import tarfile
from pathlib import Path
from typing import Any

import pytest

from components.host.params.runner import GithubRunnerParams
from components.host.params.step import Step
from components.pins import PINS

from .sandbox import Run, Sandbox

LOOP = Path(__file__).parents[3] / "components/host/scripts/github-runner-loop.sh"
API = "https://api.github.com"
APP_ID = 123
INSTALLATION_ID = 456
INSTALLATION_TOKEN = "ghs_InstallationTokenNeverPrinted0123456789"
JIT_CONFIG = "eyJKSVQiOiJ0aGlzIGlzIGEgc2VjcmV0IHJ1bm5lciBjb25maWcifQ=="
REGISTRATION_TOKEN = "AABBCCREGISTRATIONTOKENNEVERPRINTED"
RUNNER_ID = 4242
# Structurally a PEM RSA key (the stub openssl only hashes it); its body is the secret.
KEY_BODY = base64.b64encode(b"not a real key but a secret all the same " * 6).decode()
APP_KEY = (
    "-----BEGIN RSA PRIVATE KEY-----\n"
    + "".join(KEY_BODY[i : i + 64] + "\n" for i in range(0, len(KEY_BODY), 64))
    + "-----END RSA PRIVATE KEY-----\n"
)
SECRETS = (KEY_BODY[:40], INSTALLATION_TOKEN, JIT_CONFIG, REGISTRATION_TOKEN)
OWNER = getpass.getuser()

# CI installs jq (.ci/run); there a missing jq fails these tests instead of skipping them.
needs_jq = pytest.mark.skipif(
    shutil.which("jq") is None and not os.environ.get("CI"), reason="jq is not installed"
)

RUN_SH = b"""#!/bin/bash
printf 'run.sh%s\\n' "${*:+ $*}" >>"$SANDBOX/calls.log"
printf '%s' "${ACTIONS_RUNNER_INPUT_JITCONFIG-unset}" | sha256sum >"$SANDBOX/state/run.sh-jitconfig"
"""
CONFIG_SH = b"""#!/bin/bash
printf 'config.sh %s\\n' "$*" >>"$SANDBOX/calls.log"
printf '%s' "${ACTIONS_RUNNER_INPUT_TOKEN-unset}" | sha256sum >"$SANDBOX/state/config.sh-token"
printf '\\xef\\xbb\\xbf{\\n  "agentId": 77,\\n  "agentName": "gpu-ci-dev-gpu-0"\\n}' >.runner
"""


def sha256_line(text: str) -> str:
    """What `printf '%s' TEXT | sha256sum` prints."""
    return f"{hashlib.sha256(text.encode()).hexdigest()}  -\n"


def runner_tarball(version: str = PINS.runner.version) -> bytes:
    buf = io.BytesIO()
    members = {"run.sh": RUN_SH, "config.sh": CONFIG_SH, "bin/Runner.Listener": version.encode()}
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(f"./{name}")
            info.size = len(data)
            info.mode = 0o755
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def put_key(sandbox: Sandbox, key_file: str = "/etc/gpu-ci/github-app/private-key.pem") -> None:
    path = sandbox.root / key_file.lstrip("/")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.parent.chmod(0o700)
    path.write_text(APP_KEY)
    path.chmod(0o600)


def ready(sandbox: Sandbox, **overrides: Any) -> GithubRunnerParams:
    """A host with the key, Docker and the loop's packages, the tarball served."""
    put_key(sandbox)
    for package in ("jq", "openssl", "curl"):
        sandbox.installed(package)
    sandbox.put("group-docker", "ubuntu")
    values: dict[str, Any] = {
        "github_url": "https://github.com/acme",
        "app_id": APP_ID,
        "installation_id": INSTALLATION_ID,
        "runner_name": "gpu-ci-dev-gpu-0",
        "runner_labels": ("oracle-vm-gpu-a10-1", "gpu"),
        "runner_group": "GPUs",
        "root": str(sandbox.root),
        "retry_base_seconds": 0,
        "key_owner": OWNER,
        **overrides,
    }
    params = GithubRunnerParams.from_pins(**values)
    digest = sandbox.serve(params.runner_url, runner_tarball(params.runner_version))
    if "runner_sha256" not in overrides:
        params = params.model_copy(update={"runner_sha256": digest})
    return params


def install(sandbox: Sandbox, **overrides: Any) -> GithubRunnerParams:
    """Run the github-runner step successfully (it writes the env file the loop reads)."""
    params = ready(sandbox, **overrides)
    run = sandbox.run(Step.GITHUB_RUNNER, params)
    assert run.returncode == 0, run.stderr
    return params


def serve_github(
    sandbox: Sandbox, scope: str = "orgs/acme", groups: tuple[tuple[int, str], ...] = ()
) -> None:
    """The API answers of a working installation on `scope`."""
    sandbox.api(
        "POST",
        f"{API}/app/installations/{INSTALLATION_ID}/access_tokens",
        201,
        {"token": INSTALLATION_TOKEN, "expires_at": "2026-09-01T00:00:00Z"},
    )
    runner_groups = [{"id": 1, "name": "Default"}] + [{"id": i, "name": n} for i, n in groups]
    sandbox.api(
        "GET",
        f"{API}/{scope}/actions/runner-groups?per_page=100",
        200,
        {"total_count": len(runner_groups), "runner_groups": runner_groups},
    )
    sandbox.api(
        "POST",
        f"{API}/{scope}/actions/runners/generate-jitconfig",
        201,
        {"runner": {"id": RUNNER_ID, "name": "ignored"}, "encoded_jit_config": JIT_CONFIG},
    )
    sandbox.api(
        "POST",
        f"{API}/{scope}/actions/runners/registration-token",
        201,
        {"token": REGISTRATION_TOKEN, "expires_at": "2026-09-01T01:00:00Z"},
    )


def run_loop(sandbox: Sandbox, mode: str, env_file: str = "/etc/gpu-ci/github-runner.env") -> Run:
    """The repository's loop script, as the unit runs it, against the sandbox's root."""
    return sandbox.run_file(LOOP, mode, env_file, env={"GPU_CI_ROOT": str(sandbox.root)})


def decode_jwt_part(part: str) -> Any:
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


def assert_no_secret(sandbox: Sandbox, *runs: Run, allowed: tuple[Path, ...] = ()) -> None:
    """No secret in any output, in calls.log, or in any file on the host but `allowed`."""
    for run in runs:
        for secret in SECRETS:
            assert secret not in run.stdout
            assert secret not in run.stderr
            assert not any(secret in call for call in run.calls)
    for path in sandbox.root.rglob("*"):
        if path.is_file() and path not in allowed:
            data = path.read_bytes()
            for secret in SECRETS:
                assert secret.encode() not in data, f"{secret[:8]}... leaked into {path}"
