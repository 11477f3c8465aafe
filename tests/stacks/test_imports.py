"""A stack imports only the provider SDKs its layers use (each costs ~0.3 s or more)."""

from __future__ import annotations

import json
import subprocess
import sys

from stacks.offline.plan import REPO

SDKS = ("pulumi_oci", "pulumi_kubernetes", "pulumi_command")

_PLAN = """
import json, sys
from stacks.offline.engine.fakes import FakeCloud, StackExports
from stacks.offline.engine.mocks import run_program
from stacks.program import main
from stacks.offline.stack_file.read import read_stack_file

stack = sys.argv[1]
file = read_stack_file(__import__("pathlib").Path("."), stack)
reference = StackExports(
    outputs={"cluster": {"contractVersion": 1, "kind": "nvkind", "name": "gpu-ci",
        "nodeImage": "kindest/node:v1.35.0", "kubernetesVersion": "v1.35.0", "gpuCount": 1,
        "apiServerPort": 6443, "facts": {"K8s.server.version": "v1.35.0"}},
        "kubeconfig": "offline"},
    secret_names=frozenset({"kubeconfig"}),
)
cloud = FakeCloud(file.config, {"organization/gpu-ci/gpu-dev": reference})
run_program(main, project=file.project, stack=stack, config=file.config,
    secret_keys=set(file.secret_keys), cloud=cloud)
print(json.dumps(sorted({m.split(".")[0] for m in sys.modules} & set(json.loads(sys.argv[2])))))
"""


def imported(stack: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", _PLAN, stack, json.dumps(SDKS)],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    )
    result: list[str] = json.loads(done.stdout.splitlines()[-1])
    return result


def test_the_local_host_stack_loads_no_cloud_or_kubernetes_sdk() -> None:
    assert imported("workstation") == ["pulumi_command"]


def test_the_platform_stack_loads_no_oci_or_command_sdk() -> None:
    assert imported("apps-dev") == ["pulumi_kubernetes"]


def test_the_full_dev_stack_loads_all_three() -> None:
    assert imported("dev") == sorted(SDKS)
