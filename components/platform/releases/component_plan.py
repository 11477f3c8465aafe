"""One component of a resolved recipe as it will be deployed: the plan's unit.

`plan_platform` (`components/platform/release_plan.py`) makes one per enabled component;
what reads a plan's components (whether the device plugin shares GPUs: `gpu_sharing.py`)
takes them from here, below the plan and the checks it plans.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from components.platform.releases.manifests import ManifestObject


@dataclass(frozen=True)
class ComponentPlan:
    """One component as it will be deployed."""

    name: str
    namespace: str
    chart: str | None
    """The chart reference for the release; None for a manifest-only component."""
    repository: str | None
    """The https chart repository; None for oci:// charts and manifest-only components."""
    version: str
    values: dict[str, Any]
    manifests: tuple[ManifestObject, ...]
    depends_on: tuple[str, ...]
    """Enabled components (by name) this one waits for."""
    pre_manifests: tuple[ManifestObject, ...] = ()
    """Objects of its `preManifestFiles`, applied before its release."""
    health_check_asserts: str = ""
    """The component's Chainsaw health assertions (the recipe's `healthCheckAsserts`)."""
