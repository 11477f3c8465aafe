"""The failed-EphemeralRunner cleanup: CronJob, least-privilege RBAC, and its script run
against a stub kubectl."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from components.arc.cleanup import ACCOUNT, SCRIPT
from stacks.offline.engine.records import ProgramRun
from tests.components.arc.arc_helpers import CLEANUP, CRON_JOB, arc_stack, gpu_pod, run_arc
from tests.stacks.stack_helpers import children_of


def test_cron_job_runs_every_ten_minutes_as_its_own_account(example: ProgramRun) -> None:
    cron = example.one(CRON_JOB)
    assert cron.inputs["metadata"]["namespace"] == "arc-runners"
    spec = cron.inputs["spec"]
    assert spec["schedule"] == "*/10 * * * *"
    assert spec["concurrencyPolicy"] == "Forbid"
    pod = spec["jobTemplate"]["spec"]["template"]["spec"]
    assert pod["serviceAccountName"] == ACCOUNT and pod["restartPolicy"] == "Never"
    assert pod["nodeSelector"] == {"gpu-ci/pool": "cpu"}
    [container] = pod["containers"]
    assert container["image"] == "docker.io/alpine/k8s:1.33.3"
    assert container["command"][:2] == ["/bin/sh", "-c"]
    assert {"name": "NAMESPACE", "value": "arc-runners"} in container["env"]


def test_rbac_allows_only_ephemeral_runners_in_the_runners_namespace(example: ProgramRun) -> None:
    component = example.one(CLEANUP)
    kinds = sorted(r.type.rsplit(":", 1)[1] for r in children_of(example, component))
    assert kinds == ["CronJob", "Role", "RoleBinding", "ServiceAccount"]
    role = example.one("kubernetes:rbac.authorization.k8s.io/v1:Role")
    assert role.inputs["metadata"]["namespace"] == "arc-runners"
    assert role.inputs["rules"] == [
        {
            "apiGroups": ["actions.github.com"],
            "resources": ["ephemeralrunners"],
            "verbs": ["get", "list", "delete"],
        }
    ]
    binding = example.one("kubernetes:rbac.authorization.k8s.io/v1:RoleBinding")
    assert binding.inputs["subjects"] == [
        {"kind": "ServiceAccount", "name": ACCOUNT, "namespace": "arc-runners"}
    ]
    assert binding.inputs["roleRef"]["name"] == ACCOUNT


def test_cleanup_is_optional() -> None:
    run = run_arc(arc_stack(gpu_pod()))
    assert not run.by_type(CLEANUP) and not run.by_type(CRON_JOB)
    custom = run_arc(arc_stack(gpu_pod(), failedRunnerCleanup={"schedule": "0 * * * *"}))
    assert custom.one(CRON_JOB).inputs["spec"]["schedule"] == "0 * * * *"


STUB = """#!/bin/sh
printf "%s\\n" "$*" >> "$LOG"
case "$1" in
  get)
    case "$*" in
      *'@.status.phase=="Failed"'*) printf 'runner-a\\nrunner-b\\n' ;;
      *) echo "unfiltered query: $*" >&2; exit 3 ;;
    esac ;;
  delete) ;;
  *) exit 2 ;;
esac
"""


def test_script_deletes_exactly_the_failed_runners(tmp_path: Path) -> None:
    stub = tmp_path / "kubectl"
    stub.write_text(STUB)
    stub.chmod(0o755)
    log = tmp_path / "log"
    env = {
        "PATH": f"{tmp_path}:{os.environ['PATH']}",
        "LOG": str(log),
        "NAMESPACE": "arc-runners",
    }
    done = subprocess.run(
        ["/bin/sh", "-c", SCRIPT], env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    calls = log.read_text().splitlines()
    assert calls[0] == (
        "get ephemeralrunners.actions.github.com -n arc-runners -o "
        'jsonpath={range .items[?(@.status.phase=="Failed")]}{.metadata.name}{"\\n"}{end}'
    )
    assert calls[1:] == [
        "delete ephemeralrunners.actions.github.com -n arc-runners runner-a --wait=false",
        "delete ephemeralrunners.actions.github.com -n arc-runners runner-b --wait=false",
    ]
    assert done.stdout.splitlines()[-1] == "failed EphemeralRunners deleted: 2"


def test_script_with_nothing_failed_deletes_nothing(tmp_path: Path) -> None:
    stub = tmp_path / "kubectl"
    stub.write_text('#!/bin/sh\nprintf "%s\\n" "$*" >> "$LOG"\n')
    stub.chmod(0o755)
    log = tmp_path / "log"
    env = {"PATH": f"{tmp_path}:{os.environ['PATH']}", "LOG": str(log), "NAMESPACE": "ns"}
    done = subprocess.run(
        ["/bin/sh", "-c", SCRIPT], env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert len(log.read_text().splitlines()) == 1
    assert done.stdout.splitlines()[-1] == "failed EphemeralRunners deleted: 0"
