"""`python -m stacks plan`: the tree, deterministic snapshots, Mermaid, and config errors."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pulumi
import pytest

from stacks.offline.plan import REPO, plan_stack
from stacks.offline.snapshot.mermaid import render_mermaid
from stacks.offline.stack_file.read import read_stack_file


def plan_cli(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "stacks", "plan", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )


def test_dev_plan_prints_network_vm_and_edges(tmp_path: Path) -> None:
    done = plan_cli("dev", "--json", str(tmp_path / "a.json"), "--mermaid", str(tmp_path / "g.mmd"))
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    out = done.stdout
    count = len(json.loads((tmp_path / "a.json").read_text())["resources"])
    assert out.startswith(f"gpu-ci/dev: {count} resources (offline plan)\n")  # the snapshot's
    for line in (
        "├─ gpu-ci:capacity:VmCapacity  capacity",
        "└─ gpu-ci:capacity:OciGpuInstance  gpu-vm-0",
        "depends on: network, placement",
        "└─ oci:Core/instance:Instance  gpu-vm-0",
        "shape=VM.GPU.A10.1  availabilityDomain=[unknown]",
        "direction=INGRESS  protocol=6  source=198.51.100.0/24  port=22",
        "depends on: network-egress-only, network-routes, network-vcn",
        "├─ gpu-ci:host:GpuHost  host-0",
        "├─ gpu-ci:host:GithubRunner  host-0-runner",
        "├─ gpu-ci:cluster:NvkindCluster  cluster",
        "├─ gpu-ci:platform:RecipeReleases  platform",
        "└─ gpu-ci:cluster:ClusterReady  cluster",
        "chart=gpu-operator  version=v26.7.0  namespace=gpu-operator",
        "depends on: gpu-vm-0, host-0-verify",
    ):
        assert line in out
    # Steps print in the order they run.
    steps = [line.split("  ")[-1] for line in out.splitlines() if "Command  host-0-" in line]
    assert steps == [
        "host-0-cloud-init",
        "host-0-authorized-keys",
        "host-0-nvidia-driver",
        "host-0-reboot-wait",
        "host-0-docker",
        "host-0-container-toolkit",
        "host-0-toolkit-config",
        "host-0-inotify",
        "host-0-tools",
        "host-0-verify",
        "host-0-runner-github-app-key",
        "host-0-runner-github-runner",
    ]
    assert "script=[secret]" in out  # the App key fed to github-app-key
    assert out.splitlines()[-2:] == [  # how to open what observability deployed
        "observability: kubectl -n monitoring port-forward svc/kube-prometheus-stack-grafana "
        "3000:80",
        "observability: kubectl -n monitoring port-forward svc/kube-prometheus-stack-prometheus "
        "9090:9090",
    ]
    assert out.splitlines()[-3].startswith("estimated compute: $949/month")
    mermaid = (tmp_path / "g.mmd").read_text()
    assert mermaid.startswith("flowchart TD\n")


def test_json_snapshot_is_byte_identical_across_runs(tmp_path: Path) -> None:
    first, second = tmp_path / "1.json", tmp_path / "2.json"
    assert plan_cli("dev", "--quiet", "--json", str(first)).returncode == 0
    assert plan_cli("dev", "--quiet", "--json", str(second)).returncode == 0
    assert first.read_bytes() == second.read_bytes()
    snap = json.loads(first.read_text())
    assert set(snap) == {"project", "stack", "resources", "outputs"}
    assert [r["urn"] for r in snap["resources"]] == sorted(r["urn"] for r in snap["resources"])
    assert set(snap["resources"][0]) == {
        "urn",
        "type",
        "name",
        "parent",
        "custom",
        "read",
        "dependencies",
        "propertyDependencies",
        "inputs",
        "options",
        "aliases",
        "secretDigests",
    }


def test_snapshot_records_edges() -> None:
    snap = plan_stack("dev")
    by_name = {r["name"]: r for r in snap["resources"]}
    subnet = by_name["network-subnet"]
    assert by_name["network-vcn"]["urn"] in subnet["dependencies"]
    assert subnet["parent"] == by_name["network"]["urn"]
    assert by_name["network"]["parent"] == by_name["capacity"]["urn"]


def test_mermaid_has_subgraphs_and_collapsed_edges() -> None:
    snap = plan_stack("dev")
    ids = {r["name"]: f"r{i}" for i, r in enumerate(snap["resources"])}
    text = render_mermaid(snap)
    assert f"subgraph {ids['network']}[" in text
    assert f"  {ids['network']} --> {ids['gpu-vm-0']}" in text  # VM waits for the network
    assert f"  {ids['network-vcn']} --> {ids['network-subnet']}" in text


def _project(tmp_path: Path, stack_yaml: str) -> Path:
    shutil.copy(REPO / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
    (tmp_path / "Pulumi.bad.yaml").write_text(stack_yaml)
    return tmp_path


def test_config_error_exits_2_with_the_message_and_no_traceback(tmp_path: Path) -> None:
    dev = (REPO / "Pulumi.dev.yaml").read_text()
    broken = dev.replace("shape: VM.GPU.A10.1", "shape: VM.GPU.A1O.1").replace(
        "gpu-ci:compartmentId:", "gpu-ci:compartmentID:"
    )
    root = _project(tmp_path, broken)
    done = plan_cli("bad", "--project-dir", str(root))
    assert done.returncode == 2
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert lines[0] == "error: stack 'bad': invalid gpu-ci config (3 problems):"
    assert lines[1].startswith(
        "  - gpu-ci:compartmentID: unknown key (did you mean 'compartmentId'?)"
    )
    assert lines[2].startswith("  - gpu-ci:compartmentId: required when gpu-ci:capacity is 'vm'")
    assert lines[3].startswith(
        "  - gpu-ci:vm.shape: unknown GPU shape (did you mean 'VM.GPU.A10.1'?)"
    )


def test_unknown_stack_lists_the_stacks() -> None:
    done = plan_cli("nope")
    assert done.returncode == 2
    assert done.stderr.startswith(
        "error: no stack 'nope': Pulumi.nope.yaml does not exist (stacks here:"
    )


def test_secure_values_are_read_as_secret_keys(tmp_path: Path) -> None:
    dev = (REPO / "Pulumi.dev.yaml").read_text()
    secured = dev.replace(
        "  gpu-ci:owner: kubeflow-trainer-ci",
        "  gpu-ci:owner:\n    secure: v1:c2VjcmV0LW93bmVy",
    )
    root = _project(tmp_path, secured)
    stack_file = read_stack_file(root, "bad")
    assert stack_file.secret_keys == {"gpu-ci:owner", "gpu-ci:runner"}
    assert "c2VjcmV0LW93bmVy" not in json.dumps(stack_file.config)
    with pytest.raises(pulumi.RunError, match=r"gpu-ci:owner: is stored as a secret"):
        plan_stack("bad", root)


@pytest.mark.parametrize("stack_file", sorted(p.name for p in REPO.glob("Pulumi.*.yaml")))
def test_every_example_stack_plans(stack_file: str) -> None:
    stack = stack_file.removeprefix("Pulumi.").removesuffix(".yaml")
    snap = plan_stack(stack)
    assert snap["stack"] == stack and snap["resources"]


def test_readme_shows_the_current_dev_graph() -> None:
    readme = (REPO / "README.md").read_text()
    block = readme.split("```mermaid\n", 1)[1].split("```", 1)[0]
    assert block == render_mermaid(plan_stack("dev")), (
        "README's graph is stale: paste `python -m stacks plan dev --mermaid FILE` into it"
    )


def test_kubernetes_objects_are_summarised_by_kind_name_and_namespace() -> None:
    from stacks.offline.snapshot.tree import key_inputs

    inputs = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "smoke", "namespace": "ci"},
    }
    assert key_inputs("kubernetes:batch/v1:Job", inputs) == "kind=Job  name=smoke  namespace=ci"
