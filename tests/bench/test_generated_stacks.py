"""The benchmarks' generated stacks are real stack files that plan as the examples do,
with one thing scaled."""

from __future__ import annotations

from pathlib import Path

from bench.generated_stacks import write_stacks
from stacks.offline.plan import REPO, plan_run
from stacks.offline.stack_file.read import read_stack_file


def test_each_generated_stack_scales_one_thing(tmp_path: Path) -> None:
    names = write_stacks(tmp_path, [("vm", 3), ("arc", 4), ("recipe", 5)])
    assert names == ["vm-3", "arc-4", "recipe-5"]

    vms = plan_run("vm-3", tmp_path)
    assert len(vms.by_type("oci:Core/instance:Instance")) == 3
    assert len(vms.by_type("gpu-ci:host:GithubRunner")) == 3
    assert not vms.by_type("gpu-ci:cluster:NvkindCluster")

    arc = plan_run("arc-4", tmp_path)
    sets = [r.name for r in arc.by_type("kubernetes:helm.sh/v3:Release")]
    assert sum("gpu-set-" in name for name in sets) == 4

    recipe = plan_run("recipe-5", tmp_path)
    releases = [r.inputs["name"] for r in recipe.by_type("kubernetes:helm.sh/v3:Release")]
    assert [r for r in releases if r.startswith("bench-")] == [f"bench-{i:02d}" for i in range(5)]


def test_secure_values_stay_secrets(tmp_path: Path) -> None:
    write_stacks(tmp_path, [("vm", 1)])
    dev = read_stack_file(REPO, "dev")
    generated = read_stack_file(tmp_path, "vm-1")
    assert generated.secret_keys == dev.secret_keys - {"gpu-ci:cluster", "gpu-ci:platform"}
    assert generated.secret_keys
