"""The stack the action writes: a `local` target that plans offline and does, step for
step, what Kubeflow Trainer's GPU set-up script does (FIELD-NOTES §1, nine steps).

The plans come from the CLI (`python -m stacks plan STACK --project-dir DIR --json FILE`),
as the action's configure step runs it; nothing here imports the program.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.components.host.sandbox import Sandbox

from .action_sandbox import REPO, ActionSandbox

PLAN = (sys.executable, "-m", "stacks", "plan")
DIFF = (sys.executable, "-m", "stacks", "diff")
SEED_GPU_OPERATOR = (25, 3, 2)  # hack/e2e-setup-cluster.sh: GPU_OPERATOR_VERSION=v25.3.2
SEED_NODE_MINOR = 33  # kindest/node:v1.33.1


def cli_plan(project: Path, stack: str, out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*PLAN, stack, "--project-dir", str(project), "--json", str(out), "--quiet"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )


def configured(runner: ActionSandbox, **inputs: str) -> ActionSandbox:
    for step in ("prepare", "configure"):
        run = runner.run(step, **inputs)
        assert run.returncode == 0, f"{step}: {run.stderr}"
    return runner


@pytest.fixture(scope="module")
def default_stack(tmp_path_factory: pytest.TempPathFactory) -> ActionSandbox:
    """The stack of the action's default inputs, planned once for the module."""
    return configured(ActionSandbox(Sandbox(tmp_path_factory.mktemp("default"))))


def resources(plan: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["name"]: r for r in plan["resources"]}


def step_script(plan: dict[str, Any], name: str) -> str:
    script: str = resources(plan)[name]["inputs"]["stdin"]
    return script


def depends_on(plan: dict[str, Any], name: str) -> set[str]:
    urns = resources(plan)[name]["dependencies"]
    return {urn.rsplit("::", 1)[1] for urn in urns}


def waits_for(plan: dict[str, Any], name: str) -> set[str]:
    """What `name` waits for: its dependencies and those of the components around it."""
    by_urn = {r["urn"]: r for r in plan["resources"]}
    found: set[str] = set()
    resource: dict[str, Any] | None = resources(plan)[name]
    while resource is not None:
        found |= {urn.rsplit("::", 1)[1] for urn in resource["dependencies"]}
        resource = by_urn.get(resource.get("parent") or "")
    return found


def version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.lstrip("v").split("."))


# -- the stack file ------------------------------------------------------------------------
def test_the_action_writes_a_local_target_stack(default_stack: ActionSandbox) -> None:
    config = yaml.safe_load(default_stack.stack_file().read_text())["config"]
    assert config["gpu-ci:capacity"] == "none"
    assert config["gpu-ci:host"]["target"] == "local"
    assert config["gpu-ci:cluster"] == {
        "name": "kind",
        "gpus": "all",
        "apiServerAddress": "127.0.0.1",
    }
    assert config["gpu-ci:platform"] == {
        "service": "kind",
        "accelerator": "a10",
        "intent": "training",
        "platform": "kubeflow",
        "set": [],
    }
    assert config["gpu-ci:observability"] == {"enabled": False}  # a job's cluster is short-lived
    assert not [r for r in resources(default_stack.plan()) if r.startswith("monitoring")]


def test_observability_on_asks_for_prometheus_and_the_dashboard(runner: ActionSandbox) -> None:
    configured(runner, observability="true")
    plan = runner.plan()
    charts = [r["inputs"].get("chart") for r in plan["resources"] if r["name"] == "monitoring"]
    assert "kube-prometheus-stack" in charts
    assert "monitoring-dashboard-gpu-ci" in resources(plan)


def test_the_written_stack_plans_offline_with_the_cli(
    default_stack: ActionSandbox, tmp_path: Path
) -> None:
    done = cli_plan(default_stack.project, "gpu-cluster-kind", tmp_path / "plan.json")
    assert done.returncode == 0, done.stderr
    again = json.loads((tmp_path / "plan.json").read_text())
    assert again == default_stack.plan()  # what the action's configure step planned
    # Every resource of the plan, components included (render_tree in
    # stacks/offline/snapshot/tree.py): the count follows the platform's checks, which come and go
    # with the recipe's pins.
    count = len(again["resources"])
    assert done.stdout.startswith(f"gpu-ci/gpu-cluster-kind: {count} resources (offline plan)")
    kinds = {r["type"].split(":")[0] for r in again["resources"]}
    assert "oci" not in kinds  # no cloud: only this runner, the cluster, the platform


# -- the seed script's nine steps ----------------------------------------------------------
SEED_STEPS = {
    "1. nvidia-ctk config --set accept-nvidia-visible-devices-as-volume-mounts=true": (
        "host-toolkit-config",
        "--set accept-nvidia-visible-devices-as-volume-mounts=true",
    ),
    "2. nvidia-ctk runtime configure --runtime=docker --set-as-default; restart docker": (
        "host-toolkit-config",
        "runtime configure --runtime=docker --set-as-default",
    ),
    "3. nvkind cluster create --name kind --image kindest/node; print-gpus; kubeconfig": (
        "cluster-nvkind-cluster",
        "nvkind cluster create --name",
    ),
    "4. namespace gpu-operator, pod-security enforce=privileged": (
        "platform-ns-gpu-operator",
        '"pod-security.kubernetes.io/enforce": "privileged"',
    ),
    "5. ConfigMap gpu-time-slicing-config (2 replicas of nvidia.com/gpu)": (
        "platform-gpu-time-slicing-configmap-gpu-time-slicing-config",
        "replicas: 2",
    ),
    "6. helm install gpu-operator driver.enabled=false, time-slicing config, default any": (
        "platform-gpu-operator",
        '"default": "any"',
    ),
    "7. install Kubeflow Trainer (the chart)": (
        "platform-kubeflow-trainer",
        "oci://ghcr.io/kubeflow/charts/kubeflow-trainer",
    ),
    "8. every ClusterTrainingRuntime: runtimeClassName nvidia": (
        "platform-runtime-torchtune-qwen2.5-1.5b",
        '"runtimeClassName": "nvidia"',
    ),
    "9. every runtime pod: /dev/shm on a memory-backed emptyDir": (
        "platform-runtime-torchtune-qwen2.5-1.5b",
        '"mountPath": "/dev/shm"',
    ),
}


def test_each_of_the_seed_scripts_nine_steps_is_in_the_plan(default_stack: ActionSandbox) -> None:
    """The walk: every step of hack/e2e-setup-cluster.sh (GPU) has a resource doing it.

    The tests below check each one's details."""
    plan = resources(default_stack.plan())
    missing = []
    for step, (name, evidence) in SEED_STEPS.items():
        inputs = plan.get(name, {}).get("inputs", {})
        text = inputs.get("stdin") or json.dumps(inputs)
        if evidence not in text:
            missing.append(f"{step}: no {evidence!r} in {name}")
    assert len(SEED_STEPS) == 9
    assert missing == []


def test_seed_steps_1_2_toolkit_flag_default_runtime_docker_restart(
    default_stack: ActionSandbox,
) -> None:
    plan = default_stack.plan()
    script = step_script(plan, "host-toolkit-config")
    # 1. nvidia-ctk config --set accept-nvidia-visible-devices-as-volume-mounts=true --in-place
    assert "nvidia-ctk config" in script and "--in-place" in script
    assert "--set accept-nvidia-visible-devices-as-volume-mounts=true" in script
    # 2. nvidia-ctk runtime configure --runtime=docker --set-as-default; restart docker
    assert "runtime configure --runtime=docker --set-as-default" in script
    assert "systemctl restart docker" in script
    assert "readonly CDI_ENABLED=false" in script  # the seed's choice: no CDI
    # ... on the toolkit the seed pins (1.17.8-1), installed before it is configured.
    assert "readonly TOOLKIT_VERSION=1.17.8-1" in step_script(plan, "host-container-toolkit")
    assert "host-container-toolkit" in depends_on(plan, "host-toolkit-config")


def test_seed_step_3_nvkind_cluster_create_print_gpus_kubeconfig(
    default_stack: ActionSandbox,
) -> None:
    plan = default_stack.plan()
    script = step_script(plan, "cluster-nvkind-cluster")
    assert "readonly CLUSTER_NAME=kind" in script  # --name kind
    assert "nvkind cluster create --name" in script and "--image" in script
    assert "nvkind cluster print-gpus" in script
    node_image = script.split("readonly NODE_IMAGE=", 1)[1].split("\n", 1)[0]
    assert node_image.startswith("kindest/node:v1.") and "@sha256:" in node_image
    assert version(node_image.split(":v", 1)[1].split("@")[0])[1] >= SEED_NODE_MINOR
    # nvkind's default template: one control plane, one worker with every GPU.
    kind_config = script.split("readonly KIND_CONFIG='", 1)[1].split("\n'\n", 1)[0]
    assert kind_config.count("- role: control-plane") == 1
    assert kind_config.count("- role: worker") == 1
    assert "containerPath: /var/run/nvidia-container-devices/all" in kind_config
    # The kubeconfig, for the job's user (the seed copies root's): a step and an export.
    assert "cluster-cluster-kubeconfig" in resources(plan)
    assert "kubeconfig" in plan["outputs"]
    assert "host-verify" in depends_on(plan, "cluster-nvkind-cluster")


def test_seed_step_4_privileged_gpu_operator_namespace(default_stack: ActionSandbox) -> None:
    ns = resources(default_stack.plan())["platform-ns-gpu-operator"]["inputs"]
    assert ns["metadata"]["name"] == "gpu-operator"
    assert ns["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] == "privileged"


def test_seed_step_5_time_slicing_configmap(default_stack: ActionSandbox, upstream: Path) -> None:
    plan = default_stack.plan()
    name = "platform-gpu-time-slicing-configmap-gpu-time-slicing-config"
    cm = resources(plan)[name]["inputs"]
    seed = yaml.safe_load((upstream / "kubeflow-trainer" / "gpu-time-slicing.yml").read_text())
    assert cm["metadata"] == {"name": "gpu-time-slicing-config", "namespace": "gpu-operator"}
    assert cm["data"] == seed["data"]
    sharing = yaml.safe_load(cm["data"]["any"])["sharing"]["timeSlicing"]["resources"]
    assert sharing == [{"name": "nvidia.com/gpu", "replicas": 2}]
    assert "platform-ns-gpu-operator" in depends_on(plan, name)


def test_seed_step_6_gpu_operator_without_driver_time_sliced_and_waited_for(
    default_stack: ActionSandbox,
) -> None:
    plan = default_stack.plan()
    release = resources(plan)["platform-gpu-operator"]
    inputs = release["inputs"]
    assert inputs["chart"] == "gpu-operator"
    assert inputs["repositoryOpts"]["repo"] == "https://helm.ngc.nvidia.com/nvidia"
    assert version(inputs["version"]) >= SEED_GPU_OPERATOR  # the project's newer pin
    values = inputs["values"]
    assert values["driver"]["enabled"] is False  # --set driver.enabled=false
    # --set devicePlugin.config.name=..., and the ClusterPolicy patch's default: any
    assert values["devicePlugin"]["config"] == {"name": "gpu-time-slicing-config", "default": "any"}
    assert not inputs.get("skipAwait")  # helm install --wait
    assert "platform-gpu-time-slicing-configmap-gpu-time-slicing-config" in depends_on(
        plan, "platform-gpu-operator"
    )
    # "wait for operator pods; print allocatable GPUs": the operator-health check (a Chainsaw
    # Test of the operator's Deployment), the gpu-operator health check (a node advertising
    # nvidia.com/gpu), and the cluster-ready step that polls every node's allocatable GPUs.
    (test,) = [
        r["inputs"]["data"]["chainsaw-test.yaml"]
        for r in plan["resources"]
        if r["name"] == "platform-checks-operator-health" and r["type"].endswith(":ConfigMap")
    ]
    operator = yaml.safe_load(test)["spec"]["steps"][0]["try"][0]["assert"]["resource"]
    assert (operator["kind"], operator["metadata"]["name"]) == ("Deployment", "gpu-operator")
    assert "nvidia.com/gpu" in step_script(plan, "cluster-cluster-ready")
    waits = waits_for(plan, "cluster-cluster-ready")
    assert "platform" in waits or "platform-gpu-operator" in waits


def test_seed_step_7_trainer_after_the_operator(default_stack: ActionSandbox) -> None:
    plan = default_stack.plan()
    trainer = resources(plan)["platform-kubeflow-trainer"]["inputs"]
    assert trainer["chart"] == "oci://ghcr.io/kubeflow/charts/kubeflow-trainer"
    assert trainer["namespace"] == "kubeflow-system"
    assert trainer["values"]["jobset"]["install"] is True
    assert "platform-gpu-operator" in depends_on(plan, "platform-kubeflow-trainer")
    # The test images: load-images, between the cluster and the platform
    # (test_action_steps.py::test_load_images_splits_the_update_around_kind_load).


RUNTIMES = ("torch-distributed", "jax-distributed", "torchtune-qwen2.5-1.5b")


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_seed_steps_8_9_every_runtime_gets_runtime_class_and_dev_shm(
    default_stack: ActionSandbox, runtime: str
) -> None:
    plan = default_stack.plan()
    patch = resources(plan)[f"platform-runtime-{runtime}"]
    assert patch["type"] == "kubernetes:trainer.kubeflow.org/v1alpha1:ClusterTrainingRuntimePatch"
    assert patch["inputs"]["metadata"]["name"] == runtime
    # After the chart's post-install hook made the runtimes (no `kubectl | jq | apply`).
    assert "platform-kubeflow-trainer" in depends_on(plan, f"platform-runtime-{runtime}")
    jobs = patch["inputs"]["spec"]["template"]["spec"]["replicatedJobs"]
    assert jobs
    for job in jobs:
        pod = job["template"]["spec"]["template"]["spec"]
        assert pod["runtimeClassName"] == "nvidia"  # step 8
        assert {"name": "dshm", "emptyDir": {"medium": "Memory"}} in pod["volumes"]  # step 9
        for container in pod["containers"]:
            assert {"name": "dshm", "mountPath": "/dev/shm"} in container["volumeMounts"]


def test_every_runtime_the_chart_enables_is_patched(default_stack: ActionSandbox) -> None:
    plan = default_stack.plan()
    patched = {
        r["inputs"]["metadata"]["name"]
        for r in plan["resources"]
        if r["type"].endswith(":ClusterTrainingRuntimePatch")
    }
    assert patched == set(RUNTIMES)


# -- the two updates of load-images --------------------------------------------------------
def test_the_cluster_phase_then_the_full_stack_only_creates(
    default_stack: ActionSandbox, tmp_path: Path
) -> None:
    """`pulumi up` of the platform after the cluster's own update changes nothing it made."""
    runner = default_stack
    script = str(REPO / ".github/actions/gpu-cluster/scripts/configure.py")
    env = runner.env()
    plans = {}
    for phase in ("cluster", "full"):
        done = subprocess.run(
            [sys.executable, script, "phase", phase],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        plan = cli_plan(runner.project, "gpu-cluster-kind", tmp_path / f"{phase}.json")
        assert plan.returncode == 0, plan.stderr
        plans[phase] = tmp_path / f"{phase}.json"
    diff = subprocess.run(
        [*DIFF, str(plans["cluster"]), str(plans["full"]), "--json", str(tmp_path / "diff.json")],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert diff.returncode == 1, diff.stderr  # changes: the platform
    changes = json.loads((tmp_path / "diff.json").read_text())["changes"]
    assert changes and {c["op"] for c in changes} == {"create"}
    created = {c["urn"].rsplit("::", 1)[1] for c in changes}
    assert {"platform-gpu-operator", "platform-kubeflow-trainer"} <= created


# -- inputs --------------------------------------------------------------------------------
def test_the_examples_versions_are_the_projects_pins(
    default_stack: ActionSandbox, tmp_path: Path
) -> None:
    """The example spells every version out; they are the pins the defaults plan with."""
    example = yaml.safe_load((REPO / "examples/kubeflow-trainer-gpu-e2e.yaml").read_text())
    step = next(s for s in example["jobs"]["gpu-e2e-test"]["steps"] if s.get("id") == "gpu")
    inputs = {k.replace("-", "_"): str(v) for k, v in step["with"].items()}
    runner = configured(ActionSandbox(Sandbox(tmp_path)), **inputs)
    ours = json.loads((runner.work / "versions.json").read_text())
    assert ours == json.loads((default_stack.work / "versions.json").read_text())
    config = yaml.safe_load(runner.stack_file().read_text())["config"]
    assert config["gpu-ci:platform"]["set"] == [
        "kubeflow-trainer:image.tag=test",
        "kubeflow-trainer:runtimes.torchtuneDistributed.image.tag=test",
    ]
    trainer = resources(runner.plan())["platform-kubeflow-trainer"]["inputs"]["values"]
    assert trainer["image"]["tag"] == "test"


def test_cdi_and_a_newer_toolkit(runner: ActionSandbox) -> None:
    configured(runner, cdi="true", toolkit_version="1.19.1-1")
    plan = runner.plan()
    assert "readonly CDI_ENABLED=true" in step_script(plan, "host-toolkit-config")
    assert "readonly TOOLKIT_VERSION=1.19.1-1" in step_script(plan, "host-container-toolkit")


def test_one_worker_per_gpu(runner: ActionSandbox) -> None:
    configured(runner, gpus="one-per-gpu", gpu_count="2")
    script = step_script(runner.plan(), "cluster-nvkind-cluster")
    assert script.count("- role: worker") == 2
    assert "readonly EXPECTED_GPUS=2" in script


def test_stack_config_is_merged_over_the_inputs(runner: ActionSandbox) -> None:
    extra = runner.sandbox.base / "workspace" / "gpu-ci.yaml"
    extra.write_text(
        "config:\n"
        "  gpu-ci:cluster:\n"
        "    workerLabels: {team: trainer}\n"
        "  gpu-ci:platform.deploymentChecks: false\n"
    )
    configured(runner, stack_config="gpu-ci.yaml")
    config = yaml.safe_load(runner.stack_file().read_text())["config"]
    assert config["gpu-ci:cluster"]["workerLabels"] == {"team": "trainer"}
    assert config["gpu-ci:cluster"]["name"] == "kind"  # the inputs' keys stay
    assert config["gpu-ci:platform"]["deploymentChecks"] is False
    assert "platform-checks" not in resources(runner.plan())


# The inputs' own checks and the program's, in the inputs' words: test_action_inputs.py.
def test_a_bad_cluster_name_stops_in_prepare(runner: ActionSandbox) -> None:
    run = runner.run("prepare", cluster_name="Kind_1")
    assert run.returncode == 1
    assert "gpu-ci step prepare: cluster-name 'Kind_1' is not a kind cluster name" in run.stderr
