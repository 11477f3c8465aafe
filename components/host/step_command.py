"""The one way a host step becomes a pulumi-command resource.

Over SSH (`remote.Command`) when the step has a connection; on the machine running
`pulumi up` (`local.Command`) otherwise: the `local` target, and waits that watch a host
from outside (the reboot wait). A `quiet` step prints secrets (a kubeconfig, an app key):
it logs nothing and does not get its previous stdout in its environment on an update or
delete (`add_previous_output_in_env=False`).
"""

from __future__ import annotations

from typing import Any

import pulumi
import pulumi_command as command


def step_command(
    name: str,
    connection: Any | None,
    opts: pulumi.ResourceOptions,
    *,
    quiet: bool = False,
    **inputs: Any,
) -> pulumi.CustomResource:
    """The step `name` with `inputs` (create, stdin, triggers, ...), remote or local; an
    explicit `logging` input wins over the `quiet` default."""
    if quiet:
        inputs["add_previous_output_in_env"] = False
    if connection is None:
        inputs.setdefault("logging", command.local.Logging.NONE if quiet else None)
        local: pulumi.CustomResource = command.local.Command(name, opts=opts, **inputs)
        return local
    inputs.setdefault("logging", command.remote.Logging.NONE if quiet else None)
    remote: pulumi.CustomResource = command.remote.Command(
        name, connection=connection, opts=opts, **inputs
    )
    return remote
