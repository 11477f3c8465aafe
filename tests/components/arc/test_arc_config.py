"""`gpu-ci:arc` config: valid configs load; bad keys are named, with exact messages."""

from __future__ import annotations

from typing import Any

import pytest

from components.arc.scale_set_config import GpuPodScaleSet, VmLauncherScaleSet
from stacks.config import ConfigError, StackConfig, load_config, raw_from_flat
from tests.components.arc.arc_helpers import arc_stack, gpu_pod, launcher, oke
from tests.stacks.stack_helpers import flat

SECRET = {"gpu-ci:arc"}
"""A stack file with nested `secure:` values marks the whole key secret."""
NO_CREDENTIALS: dict[str, Any] = {
    "cluster": {"clusterStack": "gpu-dev"},
    "githubApp": None,
    "existingSecret": "github-app",
}
"""An arc config that holds no credential, so it may be plain config (gpu-pod sets only)."""


def load(values: dict[str, Any], secret: set[str] = SECRET) -> StackConfig:
    return load_config(raw_from_flat(flat(values), secret), "test")


def problems(values: dict[str, Any], secret: set[str] = SECRET) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        load(values, secret)
    return [str(p) for p in caught.value.problems]


def test_a_valid_config_loads_both_kinds() -> None:
    cfg = load(arc_stack())
    assert cfg.capacity == "arc" and cfg.arc is not None
    first, second = cfg.arc.scaleSets
    assert isinstance(first, VmLauncherScaleSet) and isinstance(second, GpuPodScaleSet)
    assert first.shapes == ["VM.GPU.A10.1"] and first.bootVolumeSizeGbs == 400
    assert second.containerMode == "kubernetes" and second.gpus == 1
    assert cfg.arc.controller.chartVersion == "0.14.2"
    assert cfg.arc.controller.namespace == "arc-systems"
    assert cfg.arc.cluster.source == "kubeconfig"
    assert cfg.arc.runnersNamespace == "arc-runners"


def test_min_greater_than_max_names_max_runners() -> None:
    assert problems(arc_stack(launcher(minRunners=3, maxRunners=1))) == [
        "gpu-ci:arc.scaleSets[0].maxRunners: must be at least minRunners (3): ARC keeps "
        "minRunners idle runners and scales up to maxRunners (minRunners: 0 scales to zero) "
        "[given: 1]"
    ]
    # gpu-ci:arc is secret for its credentials only, and a stack without any shows it too.
    plain = arc_stack(gpu_pod(minRunners=3, maxRunners=1), **NO_CREDENTIALS)
    assert problems(plain, set())[0].endswith("(minRunners: 0 scales to zero) [given: 1]")


def test_scale_to_zero_and_min_equal_max_are_fine() -> None:
    load(arc_stack(launcher(minRunners=0, maxRunners=0), gpu_pod(minRunners=2, maxRunners=2)))


@pytest.mark.parametrize(
    "name", ["GPU_pod", "Oracle-VM", "gpu pod", "-gpu", "gpu-", "a" * 46, "gpu.a10"]
)
def test_a_name_that_is_not_a_valid_label_names_the_key(name: str) -> None:
    assert problems(arc_stack(launcher(), gpu_pod(name=name))) == [
        "gpu-ci:arc.scaleSets[1].name: not a valid runner label for a scale set: the name is "
        "the label jobs use (runs-on), the Helm release and the AutoscalingRunnerSet, so it "
        "takes lowercase letters, digits and '-', starts and ends with a letter or digit, and "
        f"has at most 45 characters (e.g. oracle-vm-gpu-a10-1) [given: {name!r}]"
    ]


@pytest.mark.parametrize("shapes", [None, []])
def test_a_vm_launcher_without_shapes_names_the_key(shapes: list[str] | None) -> None:
    assert problems(arc_stack(launcher(shapes=shapes))) == [
        "gpu-ci:arc.scaleSets[0].shapes: a vm-launcher needs at least one VM shape to launch, "
        "tried in order on capacity errors (e.g. [VM.GPU.A10.1, VM.GPU.A10.2]) [given: []]"
    ]


def test_the_three_problems_together_in_one_message() -> None:
    values = arc_stack(launcher(shapes=[], minRunners=2, maxRunners=1), gpu_pod(name="Bad_Name"))
    assert [p.split(":", 2)[1] for p in problems(values)] == [
        "arc.scaleSets[0].maxRunners",
        "arc.scaleSets[0].shapes",
        "arc.scaleSets[1].name",
    ]


def test_arc_block_and_capacity_must_agree() -> None:
    no_block = arc_stack()
    del no_block["gpu-ci:arc"]
    assert problems(no_block) == [
        "gpu-ci:arc: required when gpu-ci:capacity is 'arc': the cluster and the runner "
        "scale sets (see Pulumi.arc.yaml)"
    ]
    found = problems({**arc_stack(), "gpu-ci:capacity": "none"})
    assert found[0].startswith("gpu-ci:arc: set, but gpu-ci:capacity is 'none'")


def test_exactly_one_cluster_source() -> None:
    both = arc_stack(cluster={"kubeconfig": "x", "clusterStack": "gpu-dev"})
    assert problems(both)[0].startswith(
        "gpu-ci:arc.cluster: give exactly one of kubeconfig (an existing cluster), "
        "clusterStack (a stack that exports cluster and kubeconfig) or oke (create one); "
        "given: kubeconfig, clusterStack"
    )
    assert "given: none" in problems(arc_stack(cluster={}))[0]


def test_github_app_or_existing_secret() -> None:
    cfg = load(arc_stack(githubApp=None, existingSecret="arc-github-app"))
    assert cfg.arc is not None and cfg.arc.existingSecret == "arc-github-app"
    assert problems(arc_stack(existingSecret="arc-github-app"))[0].startswith(
        "gpu-ci:arc.existingSecret: give exactly one of githubApp"
    )
    assert problems(arc_stack(githubApp=None))[0].startswith("gpu-ci:arc.existingSecret:")


def test_launcher_image_is_pinned_by_digest_and_runner_image_by_version() -> None:
    found = problems(
        arc_stack(
            launcher(launcherImage="ghcr.io/cncf/gha-cloudrunner:latest"),
            gpu_pod(runnerImage="ghcr.io/actions/actions-runner:latest"),
        )
    )
    assert found[0].startswith("gpu-ci:arc.scaleSets[0].launcherImage: pin the image by digest")
    assert found[1].startswith("gpu-ci:arc.scaleSets[1].runnerImage: pin the image by a version")


def test_unknown_and_misspelt_keys_inside_a_scale_set() -> None:
    found = problems(arc_stack(launcher(shape=["VM.GPU.A10.1"])))
    assert found[0].startswith(
        "gpu-ci:arc.scaleSets[0].shape: unknown key (did you mean 'shapes'?)"
    )
    # The key is named; listing the kinds of a union inside a list is problems.py's to add.
    [kind] = problems(arc_stack(gpu_pod(kind="vm-launchr"), **NO_CREDENTIALS), set())
    assert kind.startswith("gpu-ci:arc.scaleSets[0].kind: must be one of")
    assert kind.endswith("[given: 'vm-launchr']")


def test_scale_set_names_are_unique() -> None:
    assert problems(arc_stack(launcher(), launcher()))[0].startswith(
        "gpu-ci:arc.scaleSets: scale set names are labels and must be unique: "
        "['oracle-vm-gpu-a10-1']"
    )


def test_repository_scale_sets_stay_in_the_default_group() -> None:
    found = problems(arc_stack(gpu_pod(githubConfigUrl="https://github.com/o/r", runnerGroup="G")))
    assert found[0].startswith("gpu-ci:arc.scaleSets[0].runnerGroup: repository runners")


def test_oci_credentials_are_checked_but_never_echoed() -> None:
    bad = launcher(ociCredentials={**launcher()["ociCredentials"], "fingerprint": "nope"})
    # Given in plain text, the credentials are refused, and the bad one is still not shown.
    found = problems(arc_stack(bad), set())
    assert (
        "gpu-ci:arc.scaleSets[0].ociCredentials.fingerprint: not an API key fingerprint "
        "(aa:bb:...:ff) [given: [secret]]"
    ) in found
    assert not any("nope" in problem for problem in found)


def test_gpu_pod_sets_on_oke_need_a_gpu_pool() -> None:
    values = arc_stack(launcher(), gpu_pod(), cluster=oke(gpuPool=None))
    assert problems(values)[0].startswith(
        "gpu-ci:arc.scaleSets: gpu-pod scale sets ['gpu-a10-pod'] need GPU nodes: add "
        "gpu-ci:arc.cluster.oke.gpuPool"
    )


def test_oke_pools_check_shapes() -> None:
    found = problems(
        arc_stack(
            cluster=oke(
                gpuPool={"shape": "VM.GPU3.1"},
                cpuPool={"shape": "VM.Standard.E5.Flex", "ocpus": None, "memoryGbs": None},
            )
        )
    )
    assert found[0] == (
        "gpu-ci:arc.cluster.oke.cpuPool: VM.Standard.E5.Flex is a Flex shape: give ocpus and "
        'memoryGbs [given: {"shape": "VM.Standard.E5.Flex", "ocpus": ...moryGbs": null}]'
    )
    assert found[1].startswith(
        "gpu-ci:arc.cluster.oke.gpuPool.shape: the GPU pool takes an A10 shape: VM.GPU.A10.1"
    )


def test_cpu_pool_flex_defaults_apply_to_flex_shapes_only() -> None:
    cfg = load(arc_stack(cluster=oke(cpuPool={"shape": "VM.Standard.E4.Flex", "size": 3})))
    assert cfg.arc is not None and cfg.arc.cluster.oke is not None
    pool = cfg.arc.cluster.oke.cpuPool
    assert (pool.ocpus, pool.memoryGbs, pool.size) == (2, 16, 3)
    fixed = load(arc_stack(cluster=oke(cpuPool={"shape": "VM.Standard2.4"})))
    assert fixed.arc is not None and fixed.arc.cluster.oke is not None
    assert fixed.arc.cluster.oke.cpuPool.ocpus is None
    assert problems(arc_stack(cluster=oke(cpuPool={"shape": "VM.Standard2.4", "ocpus": 4})))[
        0
    ].startswith("gpu-ci:arc.cluster.oke.cpuPool: VM.Standard2.4 is a fixed shape")


def test_compartment_and_owner_only_when_arc_creates_oci_resources() -> None:
    def bare(values: dict[str, Any]) -> dict[str, Any]:
        return {
            k: v for k, v in values.items() if k not in ("gpu-ci:compartmentId", "gpu-ci:owner")
        }

    explicit = launcher(compartmentId="ocid1.compartment.oc1..aaaaaaaaother")
    load(bare(arc_stack(explicit, gpu_pod())))  # kubeconfig, own subnet and compartment
    found = problems(bare(arc_stack(launcher(), gpu_pod())))
    assert [p.split(":")[1] for p in found] == ["compartmentId"]
    found = problems(bare(arc_stack(cluster=oke())))
    assert [p.split(":")[1] for p in found] == ["compartmentId", "owner"]
    assert "an OKE cluster" in found[1]


def test_cluster_stack_is_a_referenced_stack() -> None:
    cfg = load(arc_stack(cluster={"clusterStack": "org/gpu-ci/gpu-dev"}))
    assert cfg.referenced_stacks() == ["org/gpu-ci/gpu-dev"]


def test_flex_pool_sizes_far_beyond_any_shape_are_refused() -> None:
    pool = {"shape": "VM.Standard.E5.Flex", "ocpus": 4, "memoryGbs": 100_000_000}
    found = problems(arc_stack(cluster=oke(cpuPool=pool)))
    assert found[0].startswith(
        "gpu-ci:arc.cluster.oke.cpuPool.memoryGbs: Input should be less than or equal to 8192"
    )
    pool = {"shape": "VM.Standard.E5.Flex", "ocpus": 1e9, "memoryGbs": 64}
    assert problems(arc_stack(cluster=oke(cpuPool=pool)))[0].startswith(
        "gpu-ci:arc.cluster.oke.cpuPool.ocpus: Input should be less than or equal to 512"
    )
    largest = {"shape": "VM.Standard.E5.Flex", "ocpus": 94, "memoryGbs": 1049}
    assert load(arc_stack(cluster=oke(cpuPool=largest))).arc is not None


@pytest.mark.parametrize("name", ["oci-bv$(id)", "OCI-BV", "oci bv", "-oci", "a" * 254, ""])
def test_a_work_volume_storage_class_must_be_a_kubernetes_name(name: str) -> None:
    scale_set = gpu_pod(containerMode="kubernetes", workVolume={"storageClassName": name})
    found = problems(arc_stack(launcher(), scale_set))
    assert found[0].startswith(
        "gpu-ci:arc.scaleSets[1].workVolume.storageClassName: "
        f"{name!r} is not a StorageClass name: a DNS subdomain (RFC 1123)"
    )


def test_a_work_volume_storage_class_that_is_one_loads() -> None:
    scale_set = gpu_pod(containerMode="kubernetes", workVolume={"storageClassName": "oci-bv.x"})
    assert load(arc_stack(launcher(), scale_set)).arc is not None
