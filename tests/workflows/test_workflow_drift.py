"""drift.yml: on a schedule, each opted-in stack's `pulumi refresh --preview-only
--expect-no-changes` and a read-only probe of its VMs, drift in the job summary.

The stacks are the deploy workflow's list (stack-list.yml); the CLI, plugins and actions are
pulumi-stack.yml's pins; its steps' scripts run here for real (bash, as GitHub runs them)
against a stub `pulumi` and `ssh`, the comparer being the real one.
"""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest

from components.pins import PINS
from tests.workflows.github_tools import REPO, load_github_yaml

WORKFLOWS = REPO / ".github" / "workflows"
USES = re.compile(r"^\s*(?:-\s*)?uses:\s*(\S+)", re.MULTILINE)


def _drift() -> dict[str, Any]:
    return load_github_yaml(WORKFLOWS / "drift.yml")


def _job() -> dict[str, Any]:
    job: dict[str, Any] = _drift()["jobs"]["drift"]
    return job


def _step(step_id: str) -> dict[str, Any]:
    (step,) = [s for s in _job()["steps"] if s.get("id") == step_id]
    found: dict[str, Any] = step
    return found


def test_it_runs_on_a_schedule_for_the_deployed_stacks() -> None:
    data = _drift()
    assert set(data["on"]) == {"schedule", "workflow_dispatch"}
    assert data["on"]["schedule"] == [{"cron": "23 5 * * *"}]
    assert data["jobs"]["stacks"] == {"uses": "./.github/workflows/stack-list.yml"}
    job = _job()
    assert job["strategy"]["matrix"] == {"stack": "${{ fromJSON(needs.stacks.outputs.stacks) }}"}
    assert "needs.stacks.outputs.stacks != '[]'" in job["if"]
    assert job["environment"] == "${{ matrix.stack }}"
    assert job["strategy"]["fail-fast"] is False  # one stack's drift hides no other's


def test_the_pins_and_the_lock_are_pulumi_stack_ymls() -> None:
    stack_job = load_github_yaml(WORKFLOWS / "pulumi-stack.yml")["jobs"]["pulumi"]
    job = _job()
    assert job["env"]["PULUMI_VERSION"] == stack_job["env"]["PULUMI_VERSION"]
    refs = set(USES.findall((WORKFLOWS / "drift.yml").read_text()))
    theirs = set(USES.findall((WORKFLOWS / "pulumi-stack.yml").read_text()))
    pulumi_refs = {r for r in refs if r.startswith("pulumi/")}
    assert pulumi_refs == {r for r in theirs if r.startswith("pulumi/")}
    assert len(pulumi_refs) == 2  # pulumi/actions and pulumi/auth-actions, one SHA each

    def plugins(steps: list[dict[str, Any]]) -> str:
        envs = [s["env"] for s in steps if "PULUMI_PLUGINS" in s.get("env", {})]
        return str(envs[0]["PULUMI_PLUGINS"])

    assert plugins(job["steps"]) == plugins(stack_job["steps"])
    # The same concurrency group as a preview or an update of the stack: never beside them.
    group = stack_job["concurrency"]["group"].replace("inputs.stack", "matrix.stack")
    assert job["concurrency"]["group"] == group
    assert job["concurrency"]["cancel-in-progress"] is False


def test_the_refresh_is_a_preview_that_expects_no_changes() -> None:
    text = (WORKFLOWS / "drift.yml").read_text()
    body = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    commands = re.findall(r"pulumi (refresh|up|destroy|import|state)\b[^\n]*", body)
    assert set(commands) == {"refresh"}, commands
    run = _step("refresh")["run"]
    assert 'pulumi refresh --stack "$PULUMI_STACK" --preview-only --expect-no-changes' in run
    assert "--yes" not in body and "--skip-preview" not in body
    for step in _job()["steps"]:
        assert "${{" not in step.get("run", ""), step.get("name")  # values only through env


def _stub(folder: Path, name: str, script: str) -> None:
    path = folder / name
    path.write_text("#!/bin/bash\nset -euo pipefail\n" + script)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)


def _run(step: dict[str, Any], tmp_path: Path, **env: str) -> tuple[int, str, str, str]:
    bin_dir = tmp_path / "bin"
    summary, output = tmp_path / "summary.md", tmp_path / "output"
    summary.touch()
    output.touch()
    done = subprocess.run(
        ["bash", "-e", "-c", step["run"]],
        cwd=REPO,
        env={
            "PATH": f"{bin_dir}:/usr/bin:/bin",
            "RUNNER_TEMP": str(tmp_path),
            "GITHUB_STEP_SUMMARY": str(summary),
            "GITHUB_OUTPUT": str(output),
            "STACK": "gpu-dev",
            "PULUMI_STACK": "org/gpu-ci/gpu-dev",
            "HOME": str(tmp_path),
            **env,
        },
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    return done.returncode, done.stdout, summary.read_text(), output.read_text()


@pytest.mark.parametrize("rc", [0, 255])
def test_the_refresh_result_goes_to_the_summary(tmp_path: Path, rc: int) -> None:
    (tmp_path / "bin").mkdir()
    _stub(
        tmp_path / "bin",
        "pulumi",
        'echo "$*" >>"$RUNNER_TEMP/pulumi.log"\n'
        'echo "  ~ oci:Core/instance:Instance gpu-vm-0 refresh [diff: ~freeformTags]"\n'
        f"exit {rc}\n",
    )
    code, _, summary, output = _run(_step("refresh"), tmp_path)
    assert code == 0  # the last step fails the job, after the hosts are probed too
    assert (tmp_path / "pulumi.log").read_text() == (
        "refresh --stack org/gpu-ci/gpu-dev --preview-only --expect-no-changes --diff "
        "--suppress-outputs --non-interactive --color never\n"
    )
    if rc == 0:
        assert output == "drift=false\n"
        assert summary.splitlines()[-1] == "No drift: a refresh would change nothing in the state."
    else:
        assert output == "drift=true\n"
        assert "**Drift**: a refresh would change the state (or it failed: exit 255)." in summary
        assert (
            "```\n  ~ oci:Core/instance:Instance gpu-vm-0 refresh [diff: ~freeformTags]\n```"
            in summary
        )


KEY = (
    "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n"
    "-----END OPENSSH PRIVATE KEY-----"
)


def _pulumi(tmp_path: Path, *, key: str, ips: list[str]) -> None:
    outputs = {
        "capacity": {"shape": "VM.GPU.A10.1", "publicIps": ips},
        "host": {
            "versions": {"driverBranch": "570-server", "toolkit": "1.17.8-1", "nvkind": "9a3061c"}
        },
        "cluster": {"name": "gpu-ci"},
    }
    (tmp_path / "outputs.json").write_text(json.dumps(outputs))
    (tmp_path / "key").write_text(key)
    _stub(
        tmp_path / "bin",
        "pulumi",
        'case "$1 $2" in\n'
        '  "stack output") jq ".$3" "$RUNNER_TEMP/outputs.json" ;;\n'
        '  "config get")\n'
        '    case "$6" in\n'
        '      gpu-ci:host.privateKey) [ -s "$RUNNER_TEMP/key" ] && cat "$RUNNER_TEMP/key" ;;\n'
        "      *) exit 1 ;;\n"
        "    esac ;;\n"
        "esac\n",
    )


def _report(driver: str) -> dict[str, Any]:
    return {
        "probe": 1,
        "arch": "amd64",
        "driver": {"version": driver, "packages": {"nvidia-driver-570-server": "570.172.08-1"}},
        "toolkit": {
            p: PINS.toolkit_version
            for p in (
                "nvidia-container-toolkit",
                "nvidia-container-toolkit-base",
                "libnvidia-container-tools",
                "libnvidia-container1",
            )
        },
        "docker": {"defaultRuntime": "nvidia"},
        "kind": {"version": f"v{PINS.kind.version}", "sha256": PINS.kind.sha256["amd64"]},
        "nvkind": {"identity": f"go:{PINS.nvkind.commit}:x", "stampSha256": "a", "sha256": "a"},
        "clusters": ["gpu-ci"],
        "errors": [],
    }


def test_each_vm_is_probed_over_ssh_and_compared(tmp_path: Path) -> None:
    (tmp_path / "bin").mkdir()
    _pulumi(tmp_path, key=KEY, ips=["203.0.113.7", "203.0.113.8"])
    (tmp_path / "203.0.113.7.json").write_text(json.dumps(_report("570.172.08")))
    (tmp_path / "203.0.113.8.json").write_text(json.dumps(_report("575.57.08")))
    _stub(
        tmp_path / "bin",
        "ssh",
        'key="$2"\n'
        'stat -c %a "$key" >>"$RUNNER_TEMP/ssh.log"\n'
        'echo "$*" >>"$RUNNER_TEMP/ssh.log"\n'
        "cmp -s - components/host/scripts/host-probe.sh && "
        'echo "stdin: the probe" >>"$RUNNER_TEMP/ssh.log"\n'
        'target="${@: -2:1}"\n'
        'cat "$RUNNER_TEMP/${target#*@}.json"\n',
    )
    code, stdout, summary, output = _run(_step("hosts"), tmp_path)
    assert code == 0, stdout
    assert output == "drift=true\n"
    masks = [line for line in stdout.splitlines() if line.startswith("::add-mask::")]
    assert masks == [f"::add-mask::{line}" for line in KEY.splitlines()]
    assert KEY.splitlines()[1] not in stdout.replace(masks[1], "")
    log = (tmp_path / "ssh.log").read_text().splitlines()
    known = tmp_path / "known_hosts"
    assert log[:3] == [
        "600",
        f"-i {tmp_path}/probe-key -o BatchMode=yes -o IdentitiesOnly=yes -o ConnectTimeout=30 "
        f"-o StrictHostKeyChecking=accept-new -o UserKnownHostsFile={known} "
        "ubuntu@203.0.113.7 bash -s",
        "stdin: the probe",
    ]
    assert "```\nhost 203.0.113.7: no drift\n```" in summary
    assert (
        "```\nhost 203.0.113.8: 1 difference(s) from the pins\n"
        "  - driver: nvidia-smi reports 575.57.08, the pin is branch 570-server\n```"
    ) in summary


def test_a_stack_without_its_key_is_not_probed_and_says_so(tmp_path: Path) -> None:
    (tmp_path / "bin").mkdir()
    _pulumi(tmp_path, key="", ips=["203.0.113.7"])
    code, stdout, summary, output = _run(_step("hosts"), tmp_path)
    assert code == 0 and output == "drift=false\n"
    assert "::notice::gpu-dev: no gpu-ci:host.privateKey, host drift not probed" in stdout
    assert "its hosts cannot be reached from here, none probed." in summary
    assert not (tmp_path / "probe-key").exists()


def test_the_fail_step_reads_both_results() -> None:
    (step,) = [s for s in _job()["steps"] if s.get("name") == "Fail on drift"]
    assert step["if"] == (
        "steps.refresh.outputs.drift == 'true' || steps.hosts.outputs.drift == 'true'"
    )
    assert "exit 1" in step["run"]
    steps = _job()["steps"]
    cleanup = next(
        i for i, s in enumerate(steps) if "probe-key" in s.get("run", "") and s.get("if")
    )
    assert steps[cleanup]["if"] == "always()" and cleanup == len(steps) - 2
    assert os.path.basename(str(steps[-1].get("name"))) == "Fail on drift"
