"""The OKE cluster created for ARC: enhanced cluster, node pools, images, taints, kubeconfig."""

from __future__ import annotations

import base64
import shlex
from typing import Any

import pytest

from components.arc.oke import pick_node_image, shell_word, taint_user_data
from components.arc.oke_config import OkeCpuPool, OkeGpuPool
from components.arc.pod_config import Taint
from components.base import InputError
from stacks.offline.engine.records import ProgramRun
from stacks.offline.engine.values import Secret
from tests.components.arc.arc_helpers import CLUSTER, NODE_POOL, arc_stack, gpu_pod, oke, run_arc


def pool(run: ProgramRun, role: str) -> dict[str, Any]:
    inputs: dict[str, Any] = run.one(NODE_POOL, f"oke-{role}").inputs
    return inputs


def test_enhanced_cluster_in_the_stacks_network(example: ProgramRun) -> None:
    cluster = example.one(CLUSTER).inputs
    assert cluster["type"] == "ENHANCED_CLUSTER"
    assert cluster["kubernetesVersion"] == "v1.33.1" and cluster["name"] == "gpu-ci-arc"
    assert cluster["clusterPodNetworkOptions"] == [{"cniType": "FLANNEL_OVERLAY"}]
    endpoint = cluster["endpointConfig"]
    assert endpoint["isPublicIpEnabled"] is True
    assert endpoint["subnetId"].startswith("ocid1.subnet.")
    assert len(endpoint["nsgIds"]) == 2  # the network's (API from apiSourceCidrs) and its own
    assert cluster["options"]["serviceLbSubnetIds"] == [endpoint["subnetId"]]
    assert cluster["freeformTags"]["gpu-ci-role"] == "oke"


def test_cpu_pool_is_flex_labelled_and_untainted(example: ProgramRun) -> None:
    cpu = pool(example, "cpu")
    assert cpu["nodeShape"] == "VM.Standard.E5.Flex"
    assert cpu["nodeShapeConfig"] == {"ocpus": 2, "memoryInGbs": 16}
    assert cpu["initialNodeLabels"] == [{"key": "gpu-ci/pool", "value": "cpu"}]
    assert "nodeMetadata" not in cpu
    assert cpu["nodeConfigDetails"]["size"] == 2
    [placement] = cpu["nodeConfigDetails"]["placementConfigs"]
    assert placement["availabilityDomain"] == "Fake:ASHBURN-AD-1"


def test_gpu_pool_is_an_a10_pool_with_label_taint_and_gpu_image(example: ProgramRun) -> None:
    gpu = pool(example, "gpu")
    assert gpu["nodeShape"] == "VM.GPU.A10.1" and "nodeShapeConfig" not in gpu
    assert gpu["initialNodeLabels"] == [
        {"key": "gpu-ci/pool", "value": "gpu"},
        {"key": "nvidia.com/gpu.present", "value": "true"},
    ]
    script = base64.b64decode(gpu["nodeMetadata"]["user_data"]).decode()
    assert script.startswith("#!/bin/bash\n")
    assert '--register-with-taints=nvidia.com/gpu=present:NoSchedule"' in script
    source = gpu["nodeSourceDetails"]
    assert source["sourceType"] == "IMAGE" and source["bootVolumeSizeInGbs"] == "200"
    images = example.invokes
    option = next(i for i in images if i.token.endswith("getNodePoolOption"))
    assert option.args["nodePoolOptionId"] == "all"
    assert source["imageId"] != pool(example, "cpu")["nodeSourceDetails"]["imageId"]


def test_kubeconfig_comes_from_oke_as_a_secret(example: ProgramRun) -> None:
    call = next(i for i in example.invokes if i.token.endswith("getClusterKubeConfig"))
    assert call.args["clusterId"] == example.exports["capacity"]["clusterId"]
    provider = example.one("pulumi:providers:kubernetes")
    assert isinstance(provider.inputs["kubeconfig"], Secret)


def test_newest_matching_image_is_picked() -> None:
    sources = [
        {"sourceName": "Oracle-Linux-8.10-2026.05.14-0-OKE-1.33.1-812", "imageId": "cpu-old"},
        {"sourceName": "Oracle-Linux-8.10-2026.07.30-1-OKE-1.33.1-812", "imageId": "cpu-new"},
        {"sourceName": "Oracle-Linux-8.10-Gpu-2026.07.30-1-OKE-1.33.1-812", "imageId": "gpu-new"},
        {"sourceName": "Oracle-Linux-8.10-Gpu-2026.05.14-0-OKE-1.33.1-812", "imageId": "gpu-old"},
        {"sourceName": "Oracle-Linux-8.10-aarch64-2026.08.01-0-OKE-1.33.1-812", "imageId": "arm"},
        {"sourceName": "Oracle-Linux-8.10-2026.09.01-0-OKE-1.34.1-812", "imageId": "other"},
    ]
    assert pick_node_image(sources, "v1.33.1", gpu=False) == "cpu-new"
    assert pick_node_image(sources, "v1.33.1", gpu=True) == "gpu-new"
    with pytest.raises(InputError, match=r"no GPU node image for Kubernetes v1.31.1"):
        pick_node_image(sources, "v1.31.1", gpu=True)


def test_pinned_images_and_ad_names_skip_the_lookups() -> None:
    run = run_arc(
        arc_stack(
            gpu_pod(),
            cluster=oke(
                cpuPool={
                    "imageId": "ocid1.image.oc1.iad.aaaaaaaapinnedcpu",
                    "availabilityDomains": [0, 2],
                },
                gpuPool={
                    "imageId": "ocid1.image.oc1.iad.aaaaaaaapinnedgpu",
                    "availabilityDomains": ["Uocm:US-ASHBURN-AD-3"],
                },
            ),
        )
    )
    cpu, gpu = pool(run, "cpu"), pool(run, "gpu")
    assert cpu["nodeSourceDetails"]["imageId"] == "ocid1.image.oc1.iad.aaaaaaaapinnedcpu"
    assert [p["availabilityDomain"] for p in cpu["nodeConfigDetails"]["placementConfigs"]] == [
        "Fake:ASHBURN-AD-1",
        "Fake:ASHBURN-AD-3",
    ]
    assert [p["availabilityDomain"] for p in gpu["nodeConfigDetails"]["placementConfigs"]] == [
        "Uocm:US-ASHBURN-AD-3"
    ]


def test_taint_user_data_lists_every_taint() -> None:
    assert taint_user_data(OkeCpuPool()) is None
    gpu = OkeGpuPool(
        taints=[
            Taint(key="nvidia.com/gpu", value="present"),
            Taint(key="ci/a10", effect="NoExecute"),
        ]
    )
    script = taint_user_data(gpu)
    assert script is not None
    assert "--register-with-taints=nvidia.com/gpu=present:NoSchedule,ci/a10=:NoExecute" in script


@pytest.mark.parametrize(
    ("arg", "word"),
    [
        ("--register-with-taints=nvidia.com/gpu=present:NoSchedule", None),
        ("--register-with-taints=ci/a10=:NoExecute,a_b=c.d:PreferNoSchedule", None),
        ("x=$(reboot):NoSchedule", "'x=$(reboot):NoSchedule'"),
        ('x=" ; reboot ; ":NoSchedule', "'x=\" ; reboot ; \":NoSchedule'"),
        ("x='$(reboot)'", "'x='\"'\"'$(reboot)'\"'\"''"),
        ("x=`reboot`\nreboot", "'x=`reboot`\nreboot'"),
        ("", "''"),
    ],
)
def test_shell_word_double_quotes_only_inert_text(arg: str, word: str | None) -> None:
    """Valid taint flags keep their double quotes (the bytes nodes boot with); anything
    else is single-quoted, which bash never expands."""
    assert shell_word(arg) == (f'"{arg}"' if word is None else word)
    assert shlex.split(shell_word(arg)) == [arg]
