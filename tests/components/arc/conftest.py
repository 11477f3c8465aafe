"""Fixtures for ARC tests: the example stack run once, upstream CRDs and chart defaults."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from stacks.offline.records import ProgramRun
from tests.components.arc.arc_helpers import documented_values, run_example
from tests.oracles.crd_schema import load_crd


@pytest.fixture(scope="session")
def example_plan() -> ProgramRun:
    """Pulumi.arc.yaml as `pulumi preview` sees it (ids unknown)."""
    return run_example(preview=True)


@pytest.fixture(scope="session")
def example() -> ProgramRun:
    """Pulumi.arc.yaml as `pulumi up` would register it (ids and invokes answered)."""
    return run_example(preview=False)


@pytest.fixture(scope="session")
def own_network() -> ProgramRun:
    """The example with oracle-vm-gpu-a10-2's VMs in this stack's subnet and NSG."""
    return run_example(preview=False, own_network_for="oracle-vm-gpu-a10-2")


@pytest.fixture(scope="session")
def runner_set_crd(upstream: Path) -> dict[str, Any]:
    return load_crd(upstream, "actions.github.com_autoscalingrunnersets.yaml")


@pytest.fixture(scope="session")
def scale_set_defaults(upstream: Path) -> dict[str, Any]:
    return documented_values(upstream / "charts" / "gha-runner-scale-set" / "values.yaml")


@pytest.fixture(scope="session")
def controller_defaults(upstream: Path) -> dict[str, Any]:
    return documented_values(
        upstream / "charts" / "gha-runner-scale-set-controller" / "values.yaml"
    )
