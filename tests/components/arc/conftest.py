"""Fixtures for ARC tests: the example stack run once."""

from __future__ import annotations

import pytest

from stacks.offline.engine.records import ProgramRun
from tests.components.arc.arc_helpers import run_example


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
