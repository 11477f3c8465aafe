"""Run the real program for a config given as a dict, under the recording mocks."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from stacks.offline.mocks import run_program
from stacks.offline.records import ProgramRun, Registration
from stacks.program import main

COMPARTMENT = "ocid1.compartment.oc1..aaaaaaaatestcompartment"
TENANCY = "ocid1.tenancy.oc1..aaaaaaaatesttenancy"
SSH_KEY = (
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAILP8Dewg0gHHpsIioWZ2NUIbGuM/IMIfN3OLYDd73YIu t@example"
)


def vm_stack(**overrides: Any) -> dict[str, Any]:
    """A minimal valid VM-capacity config; `overrides` replace top-level keys."""
    values: dict[str, Any] = {
        "oci:region": "us-ashburn-1",
        "gpu-ci:capacity": "vm",
        "gpu-ci:compartmentId": COMPARTMENT,
        "gpu-ci:owner": "test-team",
        "gpu-ci:network": {"sshSourceCidrs": ["198.51.100.0/24"]},
        "gpu-ci:vm": {"sshAuthorizedKeys": [SSH_KEY]},
    }
    values.update(overrides)
    return {k: v for k, v in values.items() if v is not None}


def flat(values: dict[str, Any]) -> dict[str, str]:
    """The flat string map the Pulumi CLI hands a program."""
    return {k: v if isinstance(v, str) else json.dumps(v) for k, v in values.items()}


def run_stack(
    values: dict[str, Any],
    *,
    preview: bool = True,
    secret_keys: Iterable[str] = (),
    stack: str = "test",
) -> ProgramRun:
    return run_program(
        main,
        project="gpu-ci",
        stack=stack,
        config=flat(values),
        secret_keys=set(secret_keys),
        preview=preview,
    )


def children_of(run: ProgramRun, parent: Registration) -> list[Registration]:
    return [r for r in run.registrations if r.parent == parent.urn]
