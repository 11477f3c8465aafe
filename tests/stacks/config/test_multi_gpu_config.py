"""Multi-GPU rules (issue #32): a layout or an expectation the host cannot meet, GPU sharing
with a multi-GPU expectation, one-per-gpu on a host of unknown size; each refused at preview
as one problem at the key to change, with the fix, before anything registers.
docs/multi-gpu.md#what-the-preview-refuses lists them."""

from __future__ import annotations

from typing import Any

import pulumi
import pytest

from tests.stacks.stack_helpers import SSH_KEY, dev_stack, run_stack

NO_SHARING = ["gpu-time-slicing:enabled=false", "gpu-operator:devicePlugin.config.name="]
REMOTE = "command:remote:Command"
LOCAL = "command:local:Command"


def a10(shape: str, cluster: dict[str, Any], **platform: Any) -> dict[str, Any]:
    return dev_stack(
        **{
            "gpu-ci:vm": {"shape": shape, "sshAuthorizedKeys": [SSH_KEY]},
            "gpu-ci:cluster": {"name": "gpu-ci", **cluster},
            "gpu-ci:platform": platform,
        }
    )


def local(cluster: dict[str, Any], **host: Any) -> dict[str, Any]:
    return {
        "gpu-ci:capacity": "none",
        "gpu-ci:host": {"target": "local", **host},
        "gpu-ci:cluster": {"name": "gpu-ci", **cluster},
    }


def problems(values: dict[str, Any]) -> list[str]:
    """The config error's items (each `KEY: message`)."""
    with pytest.raises(pulumi.RunError) as failure:
        run_stack(values)
    text = str(failure.value)
    assert "Traceback" not in text and text.endswith("and run again.")
    return [line[4:] for line in text.splitlines() if line.startswith("  - ")]


REFUSED = [
    pytest.param(
        a10("VM.GPU.A10.1", {"gpus": [[0], [1]]}),
        "gpu-ci:cluster.gpus: worker 1 is given GPU 1, but the host has 1 GPU (indexes 0-0), "
        "from VM.GPU.A10.1 (gpu-ci:vm.shape); use a shape with 2 GPUs (gpu-ci:vm.shape: "
        "VM.GPU.A10.2), or give each worker indexes below 1 [given: [[0], [1]]]",
        id="index-beyond-the-shape",
    ),
    pytest.param(
        a10("VM.GPU.A10.2", {"gpus": [[0], [2]]}),
        "gpu-ci:cluster.gpus: worker 1 is given GPU 2, but the host has 2 GPUs (indexes 0-1), "
        "from VM.GPU.A10.2 (gpu-ci:vm.shape); use a host with more GPUs (no listed A10 VM "
        "shape has 3 GPUs), or give each worker indexes below 2 [given: [[0], [2]]]",
        id="index-beyond-the-biggest-vm-shape",
    ),
    pytest.param(
        local({"gpus": [[0], [1]]}, gpus=1),
        "gpu-ci:cluster.gpus: worker 1 is given GPU 1, but the host has 1 GPU (indexes 0-0), "
        "from gpu-ci:host.gpus; raise gpu-ci:host.gpus if the host has more, or give each "
        "worker indexes below 1 [given: [[0], [1]]]",
        id="index-beyond-host-gpus",
    ),
    pytest.param(
        a10("VM.GPU.A10.1", {"gpus": "one-per-gpu", "expectGpus": 2}),
        "gpu-ci:cluster.expectGpus: expects 2 GPUs, but gpus: one-per-gpu gives the cluster "
        "1 GPU on VM.GPU.A10.1 (gpu-ci:vm.shape); use a shape with 2 GPUs (gpu-ci:vm.shape: "
        "VM.GPU.A10.2), or lower expectGpus [given: 2]",
        id="one-per-gpu-expectation-above-the-shape",
    ),
    pytest.param(
        a10("VM.GPU.A10.2", {"gpus": [[1]], "expectGpus": 2}),
        "gpu-ci:cluster.expectGpus: expects 2 GPUs, but gpus: [[1]] gives the cluster 1 GPU "
        "on VM.GPU.A10.2 (gpu-ci:vm.shape); list more GPU indexes, or lower expectGpus "
        "[given: 2]",
        id="listed-gpus-below-the-expectation",
    ),
    pytest.param(
        local({"gpus": [[0]], "expectGpus": 2}),
        "gpu-ci:cluster.expectGpus: expects 2 GPUs, but gpus: [[0]] gives the cluster 1 GPU "
        "on the host (gpu-ci:host.gpus unset); list more GPU indexes, or lower expectGpus "
        "[given: 2]",
        id="listed-gpus-below-the-expectation-on-a-host-of-unknown-size",
    ),
    pytest.param(
        a10("VM.GPU.A10.2", {"expectGpus": 1}),
        "gpu-ci:cluster.expectGpus: expects 1 GPU, but gpus: all gives the cluster 2 GPUs on "
        "VM.GPU.A10.2 (gpu-ci:vm.shape), which the GPU-count check would find; remove "
        "expectGpus (it follows the layout) or set it to 2 [given: 1]",
        id="expectation-below-the-layout",
    ),
    pytest.param(
        a10("VM.GPU.A10.2", {"expectGpus": 2}),
        "gpu-ci:cluster.expectGpus: expects 2 GPUs for multi-GPU jobs, but the recipe's "
        "gpu-operator shares each GPU 2 ways (timeSlicing, ConfigMap gpu-time-slicing-config "
        "of gpu-time-slicing): nvidia.com/gpu then counts 2 per GPU, a pod given 2 may get "
        "one GPU twice, and NCCL refuses two ranks on one device; turn the sharing off with "
        "gpu-ci:platform.set `gpu-time-slicing:enabled=false` and "
        "`gpu-operator:devicePlugin.config.name=`, or remove expectGpus [given: 2]",
        id="time-slicing-with-a-multi-gpu-expectation",
    ),
    pytest.param(
        local({"gpus": "one-per-gpu"}),
        "gpu-ci:cluster: gpus: one-per-gpu needs the host's GPU count: set gpu-ci:host.gpus, "
        "or list each worker's GPU indexes (gpus: [[0], [1]])",
        id="one-per-gpu-on-a-local-host-of-unknown-size",
    ),
    pytest.param(
        dev_stack(
            **{
                "gpu-ci:vm": {
                    "shape": "VM.GPU.A10.8",
                    "allowUnlistedShape": True,
                    "sshAuthorizedKeys": [SSH_KEY],
                },
                "gpu-ci:cluster": {"name": "gpu-ci", "gpus": "one-per-gpu"},
                "gpu-ci:platform": {"accelerator": "a10"},
            }
        ),
        "gpu-ci:cluster: gpus: one-per-gpu needs the host's GPU count, which gpu-ci does not "
        "know for the unlisted shape VM.GPU.A10.8 (gpu-ci:vm.shape); list each worker's GPU "
        "indexes (gpus: [[0], [1]])",
        id="one-per-gpu-on-an-unlisted-shape",
    ),
]


@pytest.mark.parametrize(("values", "message"), REFUSED)
def test_refused_at_preview_as_one_problem_at_its_key(values: dict[str, Any], message: str) -> None:
    (problem,) = problems(values)
    assert problem.startswith(message), problem


def test_an_unlisted_shape_with_listed_indexes_plans() -> None:
    """An unlisted shape's size is unknown: explicit indexes are then the layout."""
    values = dev_stack(
        **{
            "gpu-ci:vm": {
                "shape": "VM.GPU.A10.8",
                "allowUnlistedShape": True,
                "sshAuthorizedKeys": [SSH_KEY],
            },
            "gpu-ci:cluster": {"name": "gpu-ci", "gpus": [[0], [1]], "expectGpus": 2},
            "gpu-ci:platform": {"accelerator": "a10", "set": NO_SHARING},
        }
    )
    script = run_stack(values).one(REMOTE, "cluster-cluster-ready").inputs["stdin"]
    assert "readonly EXPECTED_GPUS=2" in script


def expected_gpus(values: dict[str, Any], kind: str = REMOTE) -> str:
    run = run_stack(values)
    script = str(run.one(kind, "cluster-cluster-ready").inputs["stdin"])
    (line,) = [x for x in script.splitlines() if x.startswith("readonly EXPECTED_GPUS=")]
    return line.removeprefix("readonly EXPECTED_GPUS=")


def test_the_readiness_wait_waits_for_the_layouts_gpus_not_the_hosts() -> None:
    """One GPU of an A10.2 given to the cluster: the wait wants 1, not the shape's 2."""
    assert expected_gpus(a10("VM.GPU.A10.2", {"gpus": [[1]]})) == "1"
    assert expected_gpus(a10("VM.GPU.A10.2", {"gpus": "one-per-gpu"})) == "2"


def test_expect_gpus_is_the_count_on_a_host_of_unknown_size() -> None:
    platform = {"gpu-ci:platform": {"accelerator": "a10", "set": NO_SHARING}}
    assert expected_gpus({**local({"expectGpus": 2}), **platform}, LOCAL) == "2"
    assert expected_gpus({**local({}), **platform}, LOCAL) == "1"  # any non-zero count


def test_sharing_stays_allowed_without_a_multi_gpu_expectation() -> None:
    """Two GPUs time-sliced (a shared runner) are not a multi-GPU test: they plan."""
    run = run_stack(a10("VM.GPU.A10.2", {"gpus": "one-per-gpu"}))
    assert run.one(
        "kubernetes:core/v1:ConfigMap",
        "platform-gpu-time-slicing-configmap-gpu-time-slicing-config",
    )


def test_the_expectation_without_sharing_plans() -> None:
    run = run_stack(a10("VM.GPU.A10.2", {"expectGpus": 2}, set=NO_SHARING))
    assert not [r for r in run.registrations if "time-slicing" in r.name]
