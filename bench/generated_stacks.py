"""The large stacks the benchmarks generate, written as real stack files.

Each is an example stack's file with one thing scaled up, so it plans exactly as a user's
would (`python -m stacks plan NAME --project-dir DIR`), `secure:` values included:
- `vm-N`: the dev stack without cluster and platform (one per host), with N GPU VMs, each
  bootstrapped and registered as a runner;
- `arc-N`: the arc example with N scale sets, cycling through its own kinds;
- `recipe-N`: the dev stack deploying a generated N-component recipe, each chart after the
  last.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from core import yaml_text

REPO = Path(__file__).resolve().parent.parent

Config = dict[str, Any]


def _example(stack: str) -> Config:
    doc = yaml_text.load((REPO / f"Pulumi.{stack}.yaml").read_text())
    return dict(doc["config"])


def vm_fleet(vms: int) -> Config:
    config = _example("dev")
    del config["gpu-ci:cluster"], config["gpu-ci:platform"]
    config["gpu-ci:vm"] = {**config["gpu-ci:vm"], "count": vms}
    return config


def arc_fleet(scale_sets: int) -> Config:
    config = _example("arc")
    arc = config["gpu-ci:arc"]
    examples = arc["scaleSets"]
    config["gpu-ci:arc"] = {
        **arc,
        "scaleSets": [
            {**examples[i % len(examples)], "name": f"gpu-set-{i:03d}"} for i in range(scale_sets)
        ],
    }
    return config


def recipe_catalog(root: Path, components: int) -> Path:
    """A catalog whose `bench` overlay deploys `components` charts, each after the last."""
    registry = {
        "apiVersion": "aicr.nvidia.com/v1alpha1",
        "kind": "ComponentRegistry",
        "components": [
            {
                "name": f"bench-{i:02d}",
                "displayName": f"bench-{i:02d}",
                "helm": {
                    "defaultRepository": "https://charts.example.org/bench",
                    "defaultChart": f"bench/bench-{i:02d}",
                    "defaultVersion": "1.0.0",
                    "defaultNamespace": f"bench-{i % 5}",
                },
            }
            for i in range(components)
        ],
    }
    overlay = {
        "kind": "RecipeMetadata",
        "apiVersion": "aicr.nvidia.com/v1alpha1",
        "metadata": {"name": "kind-a10-bench"},
        "spec": {
            "base": "kind-a10",
            "criteria": {"service": "kind", "accelerator": "a10", "platform": "bench"},
            "componentRefs": [
                {
                    "name": f"bench-{i:02d}",
                    "type": "Helm",
                    **({"dependencyRefs": [f"bench-{i - 1:02d}"]} if i else {}),
                }
                for i in range(components)
            ],
        },
    }
    (root / "overlays").mkdir(parents=True, exist_ok=True)
    (root / "registry.yaml").write_text(json.dumps(registry))
    (root / "overlays" / "kind-a10-bench.yaml").write_text(json.dumps(overlay))
    return root


def write_stacks(root: Path, sizes: list[tuple[str, int]]) -> list[str]:
    """Write Pulumi.yaml and one stack file per `(kind, size)` (`("vm", 50)` is `vm-50`)
    under `root`; returns the stack names."""
    makers: dict[str, Callable[[int], Config]] = {
        "vm": vm_fleet,
        "arc": arc_fleet,
        "recipe": lambda n: {
            **_example("dev"),
            "gpu-ci:platform": {
                "platform": "bench",
                "catalogs": [str(recipe_catalog(root / f"catalog-{n}", n))],
                "deploymentChecks": False,
            },
        },
    }
    shutil.copy(REPO / "Pulumi.yaml", root / "Pulumi.yaml")
    names = []
    for kind, size in sizes:
        name = f"{kind}-{size}"
        text = yaml_text.dump({"config": makers[kind](size)}, sort_keys=False)
        (root / f"Pulumi.{name}.yaml").write_text(text)
        names.append(name)
    return names
